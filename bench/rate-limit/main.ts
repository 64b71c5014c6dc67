// Global rate-limit benchmark (issue 40): per forwarded request, the CPU and the latency a
// `traffic.rateLimit.global` check (one ShouldRateLimit call to envoyproxy/ratelimit on a local Redis,
// test/ratelimit, `make ratelimit`) adds, against a local limit (`rateLimit.local`, a bucket in the proxy)
// and no limit, as ratios in the same run. Proxy, client and upstream share this process (their CPU is
// measured together); the service's own CPU comes from /proc (Redis's is not counted). Rounds alternate so
// drift on the shared machine hits each side alike. Limits are set high enough never to refuse.
import { readFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { translatedIr } from '../../test/proxy/translated-ir.js';
import { trafficManifests } from '../../test/proxy/traffic-manifests.js';
import { RateLimitService } from '../../test/proxy/ratelimit-service.js';

const REQUESTS = 800;
const CONCURRENCY = 8;
const SEQUENTIAL = 150;
const ROUNDS = 3;

const upstream = createServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
const upstreamPort = (upstream.address() as AddressInfo).port;
const service = await RateLimitService.start(`domain: bench
descriptors:
  - {key: route, value: global, rate_limit: {unit: day, requests_per_unit: 1000000000}}
`);
const runtime = new ProxyRuntime({ log: pino({ level: 'info' }, new Writable({ write: (_c, _e, done) => done() })) });
await runtime.apply(
  translatedIr(
    trafficManifests(upstreamPort, [
      { name: 'plain', traffic: '{}' },
      { name: 'local', traffic: '{rateLimit: {local: [{requests: 1000000000, unit: Seconds}]}}' },
      {
        name: 'global',
        traffic: `{rateLimit: {global: {url: "grpc://127.0.0.1:${service.grpcPort}", domain: bench, timeout: 2s, descriptors: [{entries: [{name: route, expression: "'global'"}]}]}}}`,
      },
    ]),
  ),
);
const port = Object.values(runtime.boundPorts())[0] as number;
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function get(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      res
        .resume()
        .on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${path}: status ${res.statusCode}`))));
    });
    req.on('error', reject).end();
  });
}

/** The service's user + system CPU so far, in microseconds (/proc clock ticks, 100 per second). */
function serviceCpuUs(): number {
  const fields = readFileSync(`/proc/${service.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

async function cpuPerRequest(path: string): Promise<{ proxy: number; service: number }> {
  let next = 0;
  const t0 = process.cpuUsage();
  const s0 = serviceCpuUs();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) await get(`${path}/${next++}`);
    }),
  );
  const u = process.cpuUsage(t0);
  return { proxy: (u.user + u.system) / REQUESTS, service: (serviceCpuUs() - s0) / REQUESTS };
}

/** Latencies (ms) of one request at a time: what a lone client waits. */
async function latencies(path: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    const t = performance.now();
    await get(`${path}/${i}`);
    out.push(performance.now() - t);
  }
  return out;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const p99 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)] as number;
const sides = { 'no limit': '/plain', 'local limit': '/local', 'global limit (Redis)': '/global' };
const cpu = new Map<string, { proxy: number[]; service: number[] }>();
const lat = new Map<string, number[]>();
for (const path of Object.values(sides)) await cpuPerRequest(path); // warm-up: JIT, pools, the gRPC channel
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, path] of Object.entries(sides)) {
    const c = await cpuPerRequest(path);
    const s = cpu.get(name) ?? { proxy: [], service: [] };
    s.proxy.push(c.proxy);
    s.service.push(c.service);
    cpu.set(name, s);
    lat.set(name, [...(lat.get(name) ?? []), ...(await latencies(path))]);
  }
}
console.log(
  `global vs local rate limit: medians of ${ROUNDS} rounds (${REQUESTS} requests at ${CONCURRENCY} in flight for CPU, ${SEQUENTIAL} one at a time for latency); load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const base = { cpu: median(cpu.get('local limit')?.proxy ?? []), lat: median(lat.get('local limit') ?? []) };
for (const name of Object.keys(sides)) {
  const c = median(cpu.get(name)?.proxy ?? []);
  const s = median(cpu.get(name)?.service ?? []);
  const l = lat.get(name) ?? [];
  console.log(
    `  ${name.padEnd(21)} proxy CPU ${c.toFixed(1).padStart(7)} µs/request (vs local ${(c / base.cpu).toFixed(2)}, ${c >= base.cpu ? '+' : ''}${(c - base.cpu).toFixed(1)} µs)   service CPU ${s.toFixed(1).padStart(6)} µs/check   latency p50 ${median(l).toFixed(3)} ms (vs local ${(median(l) / base.lat).toFixed(2)}, ${median(l) >= base.lat ? '+' : ''}${(median(l) - base.lat).toFixed(3)} ms) p99 ${p99(l).toFixed(3)} ms`,
  );
}
agent.destroy();
await runtime.close();
await service.stop();
upstream.close();
