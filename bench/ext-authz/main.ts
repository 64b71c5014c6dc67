// gRPC ext_authz benchmark (issue 36): per forwarded request, the CPU and the latency a gRPC ext_authz round
// trip to a local Open Policy Agent (test/opa, `make opa`) adds, as ratios to the same route without it in the
// same run. Proxy, client and upstream share this process (their CPU is measured together, so the fixed work is
// in both figures); OPA's own CPU comes from /proc. Rounds alternate so drift on the shared machine hits each alike.
import { readFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { translatedIr } from '../../test/proxy/translated-ir.js';
import { trafficManifests } from '../../test/proxy/traffic-manifests.js';
import { OpaServer } from '../../test/proxy/auth/opa-server.js';

const REQUESTS = 2000;
const CONCURRENCY = 8;
const SEQUENTIAL = 300;
const ROUNDS = 3;

const upstream = createServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
const upstreamPort = (upstream.address() as AddressInfo).port;
const opa = await OpaServer.start();
const runtime = new ProxyRuntime({ log: pino({ level: 'info' }, new Writable({ write: (_c, _e, done) => done() })) });
await runtime.apply(
  translatedIr(
    trafficManifests(upstreamPort, [
      { name: 'plain', traffic: '{}' },
      // /public is a path the test policy allows for anyone (test/proxy/auth/testdata/ext-authz.rego).
      { name: 'public', traffic: `{extAuth: {url: "grpc://127.0.0.1:${opa.port}", grpc: {}}}` },
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
        .on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject).end();
  });
}

/** OPA's user + system CPU so far, in microseconds (/proc clock ticks, 100 per second). */
function opaCpuUs(): number {
  const fields = readFileSync(`/proc/${opa.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

async function cpuPerRequest(path: string): Promise<{ proxy: number; opa: number }> {
  let next = 0;
  const t0 = process.cpuUsage();
  const o0 = opaCpuUs();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) await get(`${path}/${next++}`);
    }),
  );
  const u = process.cpuUsage(t0);
  return { proxy: (u.user + u.system) / REQUESTS, opa: (opaCpuUs() - o0) / REQUESTS };
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
const sides = { 'without ext_authz': '/plain', 'gRPC ext_authz (OPA)': '/public' };
const cpu = new Map<string, { proxy: number[]; opa: number[] }>();
const lat = new Map<string, number[]>();
for (const path of Object.values(sides)) await cpuPerRequest(path); // warm-up: JIT, pools, the gRPC channel
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, path] of Object.entries(sides)) {
    const c = await cpuPerRequest(path);
    const s = cpu.get(name) ?? { proxy: [], opa: [] };
    s.proxy.push(c.proxy);
    s.opa.push(c.opa);
    cpu.set(name, s);
    lat.set(name, [...(lat.get(name) ?? []), ...(await latencies(path))]);
  }
}
console.log(
  `gRPC ext_authz to a local OPA: medians of ${ROUNDS} rounds (${REQUESTS} requests at ${CONCURRENCY} in flight for CPU, ${SEQUENTIAL} one at a time for latency); load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const base = {
  cpu: median(cpu.get('without ext_authz')?.proxy ?? []),
  lat: median(lat.get('without ext_authz') ?? []),
};
for (const name of Object.keys(sides)) {
  const c = median(cpu.get(name)?.proxy ?? []);
  const o = median(cpu.get(name)?.opa ?? []);
  const l = lat.get(name) ?? [];
  console.log(
    `  ${name.padEnd(22)} proxy CPU ${c.toFixed(1).padStart(7)} µs/request (ratio ${(c / base.cpu).toFixed(2)}, +${(c - base.cpu).toFixed(1)} µs)   OPA CPU ${o.toFixed(1).padStart(6)} µs/check   latency p50 ${median(l).toFixed(3)} ms (ratio ${(median(l) / base.lat).toFixed(2)}, +${(median(l) - base.lat).toFixed(3)} ms) p99 ${p99(l).toFixed(3)} ms`,
  );
}
agent.destroy();
await runtime.close();
await opa.stop();
upstream.close();
