// xDS fan-out benchmark: 100 and then 1,000 lightweight proxies subscribed to one gateway in this
// process, then single-resource changes; for each, the time from the change until the server has every
// ACK. The proxies run on worker threads, so the main thread's CPU and heap are the server's.
// Loopback only, plaintext, bounded (about 30 s). Figures go to docs/xds.md, section Performance.
//   BENCH_XDS_CLIENTS=100,1000   the scenarios (each `clients` or `clients:changes`)
//   BENCH_BASELINE=/path/to/tree  also run that tree's compiled server (dist/xds) in each scenario, first
//   BENCH_XDS_WORKERS=N           client threads (default one per 500 proxies)
//   BENCH_XDS_CLIENT=grpc         the real xDS client (src/xds/client.ts) instead of the raw one (raw-client.ts)
//   BENCH_PROF=DIR                a CPU profile of the server thread during the changes, one file per run
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { cpus, loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import * as memorySource from '../../src/xds/memory-source.js';
import * as xdsServer from '../../src/xds/server.js';
import type { XdsResource } from '../../src/xds/snapshot.js';
import { threadCpuMs } from './thread-cpu.js';

const RESOURCES = 20;
const BODY_BYTES = 1024;
const TARGETS: Record<number, number> = { 100: 100, 1000: 250 };
const SCENARIOS = (process.env.BENCH_XDS_CLIENTS ?? '100:50,1000:30').split(',').map((s) => {
  const [clients, changes] = s.split(':').map(Number);
  return { clients: clients!, changes: changes ?? 30 };
});

const CLIENT = process.env.BENCH_XDS_CLIENT === 'grpc' ? 'grpc' : 'raw';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const log = pino({ level: 'silent' });
const body = (seed: string) => Buffer.alloc(BODY_BYTES, seed);
const snapshot = (change: number): Record<string, XdsResource> => {
  const out: Record<string, XdsResource> = {};
  for (let i = 0; i < RESOURCES; i++)
    out[`resource/${i}`] = { type: 'gw.ir.v1.Policy', body: body(i === 0 ? `change-${change}` : `r${i}`) };
  return out;
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** With BENCH_PROF: starts the main thread's profiler; the returned function writes DIR/<name>.cpuprofile. */
async function startProfile(): Promise<((name: string) => Promise<void>) | undefined> {
  const dir = process.env.BENCH_PROF;
  if (!dir) return undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async (name) => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(`${dir}/${name}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  };
}

type ServerModule = typeof xdsServer;
type SourceModule = typeof memorySource;
interface Build {
  name: string;
  server: ServerModule;
  source: SourceModule;
}

interface Result {
  latencies: number[];
  serverCpuMs: number;
  busyMs: number;
  clientCpuMs: number;
  serverHeap: number;
  rss: number;
  clientHeap: number;
  load: number;
}

/** The simulated proxies, split across worker threads; resolves once every one holds the first snapshot. */
async function startClients(port: number, clients: number) {
  const threads = Number(process.env.BENCH_XDS_WORKERS) || Math.max(1, Math.ceil(clients / 500));
  // tsx's loader does not reach worker threads by itself: each worker registers it first.
  const bootstrap = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./clients.ts', import.meta.url).href)}); })`;
  const workers: Worker[] = [];
  for (let t = 0; t < threads; t++) {
    const first = Math.floor((t * clients) / threads);
    const count = Math.floor(((t + 1) * clients) / threads) - first;
    workers.push(new Worker(bootstrap, { eval: true, workerData: { port, first, count, kind: CLIENT } }));
  }
  const ask = <T>(w: Worker, key: string, send?: object) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (msg: Record<string, unknown>) => {
        if (!(key in msg)) return;
        w.off('message', onMessage);
        resolve(msg as T);
      };
      w.on('message', onMessage);
      w.once('error', reject);
      if (send) w.postMessage(send);
    });
  const all = <T>(key: string, send?: object) => Promise.all(workers.map((w) => ask<T>(w, key, send)));
  const ready = await all<{ heapDelta: number }>('ready');
  return {
    heapDelta: ready.reduce((s, r) => s + r.heapDelta, 0),
    cpuMs: async () => (await all<{ cpuMs: number }>('cpuMs', { cpu: true })).reduce((s, r) => s + r.cpuMs, 0),
    close: async () => {
      await all('closed', { close: true });
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

async function scenario(build: Build, clients: number, changes: number): Promise<Result> {
  const source = build.source.createMemorySource();
  source.set('bench/gw', snapshot(0));
  let acks = 0;
  let waiter: { target: number; resolve: () => void } | undefined;
  const acked = (target: number, what: string) =>
    new Promise<void>((resolve, reject) => {
      if (acks >= target) return resolve();
      const timer = setTimeout(() => reject(new Error(`bench: timed out waiting for ${what}`)), 20_000);
      waiter = { target, resolve: () => (clearTimeout(timer), resolve()) };
    });
  const onAck = () => {
    acks++;
    if (waiter && acks >= waiter.target) waiter.resolve();
  };
  const server = await build.server.createXdsServer({
    ...{ source, log, registry: new Registry(), port: 0, host: '127.0.0.1', mode: 'plaintext' },
    onAck,
  });
  gc();
  const before = process.memoryUsage();
  const proxies = await startClients(server.port, clients);
  await acked(clients, 'every initial ACK');
  gc();
  const after = process.memoryUsage();

  const latencies: number[] = [];
  const profiler = await startProfile();
  const [cpu0, clientCpu0, elu0] = [threadCpuMs(), await proxies.cpuMs(), performance.eventLoopUtilization()];
  for (let change = 1; change <= changes; change++) {
    const done = acked(acks + clients, `ACKs of change ${change}`);
    const start = performance.now();
    source.set('bench/gw', snapshot(change));
    await done;
    latencies.push(performance.now() - start);
  }
  const serverCpuMs = (threadCpuMs() - cpu0) / changes;
  const busyMs = performance.eventLoopUtilization(elu0).active / changes;
  const clientCpuMs = ((await proxies.cpuMs()) - clientCpu0) / changes;
  await profiler?.(`xds-${build.name.replace(/\W+/g, '_')}-${clients}`);
  await proxies.close();
  await server.close();
  latencies.sort((a, b) => a - b);
  const [serverHeap, rss] = [(after.heapUsed - before.heapUsed) / clients, (after.rss - before.rss) / clients];
  const clientHeap = proxies.heapDelta / clients;
  return { latencies, serverCpuMs, busyMs, clientCpuMs, serverHeap, rss, clientHeap, load: loadavg()[0]! };
}

function report(build: string, clients: number, r: Result): boolean {
  const target = TARGETS[clients] ?? 250;
  const p99 = percentile(r.latencies, 99);
  const kib = (bytes: number) => (bytes / 1024).toFixed(1);
  console.log(
    `  [${build}] ${clients} proxies, ${r.latencies.length} changes: change -> all ACKed p50 ${percentile(r.latencies, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (target <= ${target} ms: ${p99 <= target ? 'met' : 'missed'}); load average ${r.load.toFixed(2)} on ${cpus().length} cores`,
  );
  console.log(
    `      server per change: CPU ${r.serverCpuMs.toFixed(1)} ms (event loop busy ${r.busyMs.toFixed(1)} ms); simulated proxies' CPU per change ${r.clientCpuMs.toFixed(1)} ms (worker threads)`,
  );
  console.log(
    `      memory per connected proxy: server heap ${kib(r.serverHeap)} KiB; process RSS (server + client threads) ${kib(r.rss)} KiB; client heap ${kib(r.clientHeap)} KiB`,
  );
  return p99 <= target;
}

async function builds(): Promise<Build[]> {
  const own: Build = { name: 'this tree', server: xdsServer, source: memorySource };
  const base = process.env.BENCH_BASELINE;
  if (!base) return [own];
  const server = (await import(`${base}/dist/xds/server.js`)) as ServerModule;
  const source = (await import(`${base}/dist/xds/memory-source.js`)) as SourceModule;
  return [{ name: `baseline ${base}`, server, source }, own];
}

async function main(): Promise<number> {
  console.log(
    `xds fan-out: ${RESOURCES} resources of ${BODY_BYTES} B per gateway, single-resource changes (10 ms debounce included); simulated proxies: ${CLIENT === 'raw' ? 'raw HTTP/2 gRPC streams (bench/xds/raw-client.ts)' : 'the real xDS client'}; CPU from /proc/thread-self (10 ms ticks)`,
  );
  const list = await builds();
  for (const { clients, changes } of SCENARIOS) {
    for (const build of list) {
      const met = report(build.name, clients, await scenario(build, clients, changes));
      // Reported, not failed: on a shared machine the figure measures the neighbours as much as this code.
      if (!met) console.log('      p99 above the target; compare the server CPU per change and the load average');
    }
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
