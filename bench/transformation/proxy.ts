// The transformation bench's proxy: the compiled proxy runtime (dist/, as `gw proxy` runs it) in its own
// process, serving the bench's `plain` and `shaped` routes (routes.ts) to the upstream at 127.0.0.1:argv[2].
// argv[3], when given, is another checkout whose built runtime to serve (an A/B baseline). Started with an IPC
// channel by main.ts: it sends `{ url }` once serving, answers each `'cpu'` message with its own CPU time so far
// (`process.cpuUsage()`: every thread of this process, GC included, in microseconds) and exits when the
// channel closes.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pino } from 'pino';
import type { ProxyRuntime as Runtime } from '../../src/proxy/runtime.js';
import { benchIr } from './routes.js';

const port = Number(process.argv[2]);
const root = process.argv[3] ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const built = path.join(root, 'dist/proxy/runtime.js');
if (!existsSync(built))
  throw new Error(`${built} is missing: build it first (npx tsc -p tsconfig.build.json in ${root})`);
const mod = (await import(pathToFileURL(built).href)) as { ProxyRuntime: typeof Runtime };

const runtime = new mod.ProxyRuntime({ log: pino({ level: 'warn' }) });
await runtime.apply(benchIr(port));
process.send?.({ url: `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}` });
process.on('message', (m) => {
  if (m !== 'cpu') return;
  const used = process.cpuUsage();
  process.send?.({ cpuUs: used.user + used.system });
});
process.on('disconnect', () => void runtime.close().then(() => process.exit(0)));
