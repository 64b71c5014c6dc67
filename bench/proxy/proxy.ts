// Bench proxy: a proxy runtime in its own process, one streamable-HTTP target given as argv[2].
// argv[3] (optional) is the root of another built checkout whose runtime to load instead (A/B runs).
// Prints the MCP URL on stdout; on a "stats" line on stdin prints one JSON line with its event-loop
// delay and GC pauses since the last one, so the bench can tell own stalls from run-queue waits.
import path from 'node:path';
import { createInterface } from 'node:readline';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { normalizeSnapshot } from '../../src/ir/load.js';
import { configToIr } from '../../src/config/to-ir.js';
import type { ProxyRuntime as Runtime } from '../../src/proxy/runtime.js';
import { startAllocationProfile } from './alloc-profile.js';

const upstream = process.argv[2] ?? '';
// The compiled runtime (`make bench` builds first), as `gw proxy` runs it: tsx's transform adds a
// name-keeping wrapper to every closure, which would count against the proxy's hot path.
const root = process.argv[3] ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const mod = (await import(pathToFileURL(path.join(root, 'dist/proxy/runtime.js')).href)) as {
  ProxyRuntime: typeof Runtime;
};
const snapshot = normalizeSnapshot(
  configToIr(
    { mcp: { port: 1, host: '127.0.0.1', targets: [{ name: 'bench', streamableHttp: { url: upstream } }] } },
    'bench',
  ),
);
for (const r of snapshot.resources) if (r.bind) r.bind.port = 0;
const runtime = new mod.ProxyRuntime({ log: pino({ level: 'warn' }) });
await runtime.apply(snapshot);

const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
let gcCount = 0;
let gcMs = 0;
let gcMax = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gcCount++;
    gcMs += e.duration;
    gcMax = Math.max(gcMax, e.duration);
  }
}).observe({ entryTypes: ['gc'] });
// The bench holds our stdin: when it goes away (even killed), so do we.
createInterface({ input: process.stdin })
  .on('close', () => process.exit(0))
  .on('line', () => {
    console.log(JSON.stringify({ loopP99: loop.percentile(99) / 1e6, loopMax: loop.max / 1e6, gcCount, gcMs, gcMax }));
    loop.reset();
    gcCount = 0;
    gcMs = 0;
    gcMax = 0;
  });
console.log(`http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}/mcp`);
const stopProfile = process.env.BENCH_HEAPPROF && !process.argv[3] ? await startAllocationProfile() : undefined;
// Exit normally on SIGTERM so `--cpu-prof` (BENCH_PROF=proxy.ts) can write its profile.
process.once(
  'SIGTERM',
  () =>
    void (async () => {
      await stopProfile?.();
      await runtime.close();
      process.exit(0);
    })(),
);
