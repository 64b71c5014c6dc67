// The measured process of bench/memory: plain Node (no tsx, whose loader would be counted) loading one
// build's compiled proxy runtime, as `gw proxy` does. argv: the build's root, a JSON snapshot file.
// Prints one JSON line per reading (after two full collections): bare, import, apply; then one more for
// each "read" line on stdin, after the bench has driven load. Exits when stdin closes.
import { readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { pino } from 'pino';

const [root, snapshotFile] = process.argv.slice(2);
const gc = globalThis.gc;
// GC pauses since start (the readings' own forced collections included): what a V8 flag such as
// --max-semi-space-size costs, in pause time rather than in CPU per call, which load on the machine blurs.
const pauses = { ms: 0, count: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    pauses.ms += e.duration;
    pauses.count++;
  }
}).observe({ entryTypes: ['gc'] });
const reading = (phase, extra = {}) => {
  gc();
  gc();
  const m = process.memoryUsage();
  const cpu = process.cpuUsage();
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const { rss, heapUsed: heap, heapTotal, external } = m;
  // RSS split: anonymous memory (heaps, malloc) and file pages (mostly the node binary, shared between processes).
  const kib = (field) =>
    1024 * Number(readFileSync('/proc/self/status', 'utf8').match(new RegExp(`${field}:\\s*(\\d+)`))?.[1]);
  const newSpace = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.physical_space_size;
  const memory = { rss, rssAnon: kib('RssAnon'), rssFile: kib('RssFile'), heap, heapTotal, newSpace, external };
  console.log(JSON.stringify({ phase, cpuMs, gcMs: pauses.ms, gcCount: pauses.count, ...memory, ...extra }));
};
reading('bare');
const dist = (file) => import(pathToFileURL(path.join(root, 'dist', file)).href);
const [{ ProxyRuntime }, { normalizeSnapshot }] = await Promise.all([dist('proxy/runtime.js'), dist('ir/load.js')]);
reading('import');
// The snapshot goes through the IR codec, as one from the xDS stream or a config file would.
const snapshot = normalizeSnapshot(JSON.parse(readFileSync(snapshotFile, 'utf8')));
const runtime = new ProxyRuntime({ log: pino({ level: 'warn' }) });
await runtime.apply(snapshot);
reading('apply', { url: `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}` });
createInterface({ input: process.stdin })
  .on('line', (phase) => reading(phase))
  .on('close', () => void runtime.close().then(() => process.exit(0)));
