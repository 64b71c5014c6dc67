// External processing benchmark (issue 36): what one ext_proc round trip in Buffered mode costs a forwarded
// request, against the same route without a processor, in one run. The processor is the test server
// (test/extproc, Go on go-control-plane's types, `make extproc`) answering CONTINUE to every message.
// CPU: this process (proxy, keep-alive client, upstream) and, apart, the processor's own (from /proc).
// Latency: one request at a time, so the added time is the round trip's, not queueing.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { translatedIr } from '../../test/proxy/translated-ir.js';
import { trafficManifests } from '../../test/proxy/traffic-manifests.js';
import { ExtProcServer } from '../../test/proxy/ext/ext-proc-server.js';

const REQUESTS = 1000;
const CONCURRENCY = 16;
const ROUNDS = 3;
const LATENCY_REQUESTS = 200;
const BODY = JSON.stringify({ prompt: 'x'.repeat(512) });

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

const upstream = await listen((req, res) => {
  req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
});
const processor = await ExtProcServer.start(['-quiet']);

const cases = {
  'no processor': '{}',
  'Buffered request (headers + body)': `{extProc: {url: "${processor.url}", processingOptions: {requestBody: Buffered, responseHeaders: Skip, timeout: 5s}}}`,
  'Buffered both ways (4 messages)': `{extProc: {url: "${processor.url}", processingOptions: {requestBody: Buffered, responseBody: Buffered, timeout: 5s}}}`,
};

const discard = new Writable({ write: (_c, _e, done) => done() });
const runtime = new ProxyRuntime({ log: pino({ level: 'warn' }, discard) });
const names = Object.keys(cases);
await runtime.apply(
  translatedIr(
    trafficManifests(
      upstream.port,
      Object.values(cases).map((traffic, i) => ({ name: `c${i}`, traffic })),
    ),
  ),
);
const port = Object.values(runtime.boundPorts())[0] as number;

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
function post(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        res
          .resume()
          .on('end', () =>
            res.statusCode === 200 ? resolve() : reject(new Error(`${path}: status ${res.statusCode}`)),
          );
      },
    );
    req.on('error', reject).end(BODY);
  });
}

/** utime + stime of a process in µs (Linux /proc; clock ticks of 100 Hz). */
function processCpuUs(pid: number | undefined): number {
  if (!pid) return 0;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

async function cpuPerRequest(path: string): Promise<{ node: number; processor: number }> {
  let next = 0;
  const t0 = process.cpuUsage();
  const p0 = processCpuUs(processor.pid);
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < REQUESTS) await post(path);
    }),
  );
  const u = process.cpuUsage(t0);
  return { node: (u.user + u.system) / REQUESTS, processor: (processCpuUs(processor.pid) - p0) / REQUESTS };
}

async function latencies(path: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < LATENCY_REQUESTS; i++) {
    const t = process.hrtime.bigint();
    await post(path);
    out.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  return out.sort((a, b) => a - b);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const pct = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number;

for (const [i] of names.entries()) await cpuPerRequest(`/c${i}`); // warm-up: JIT, pools, the gRPC channel
const cpu = new Map<string, { node: number[]; processor: number[] }>(
  names.map((n) => [n, { node: [], processor: [] }]),
);
const lat = new Map<string, number[][]>(names.map((n) => [n, []]));
for (let round = 0; round < ROUNDS; round++)
  for (const [i, name] of names.entries()) {
    const c = await cpuPerRequest(`/c${i}`);
    cpu.get(name)?.node.push(c.node);
    cpu.get(name)?.processor.push(c.processor);
    lat.get(name)?.push(await latencies(`/c${i}`));
  }

console.log(
  `ext_proc (median of ${ROUNDS} rounds; CPU over ${REQUESTS} POSTs at ${CONCURRENCY} in flight, latency over ${LATENCY_REQUESTS} one at a time; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}):`,
);
const base = names[0] as string;
const baseCpu = median(cpu.get(base)?.node ?? []);
const baseP50 = median((lat.get(base) ?? []).map((l) => pct(l, 0.5)));
for (const name of names) {
  const node = median(cpu.get(name)?.node ?? []);
  const proc = median(cpu.get(name)?.processor ?? []);
  const p50 = median((lat.get(name) ?? []).map((l) => pct(l, 0.5)));
  const p99 = median((lat.get(name) ?? []).map((l) => pct(l, 0.99)));
  console.log(
    `  ${name.padEnd(34)} CPU ${node.toFixed(1).padStart(6)} µs (+${(node - baseCpu).toFixed(1)}) + processor ${proc.toFixed(1).padStart(5)} µs   latency p50 ${p50.toFixed(0).padStart(5)} µs (+${(p50 - baseP50).toFixed(0)}) p99 ${p99.toFixed(0).padStart(5)} µs`,
  );
}
await runtime.close();
await processor.close();
agent.destroy();
upstream.server.close();
