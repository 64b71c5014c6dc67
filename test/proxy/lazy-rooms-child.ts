// The process of test/proxy/lazy-rooms.test.ts: applies the IR snapshot in argv[2] (JSON) to a proxy
// runtime, as a worker would, then, when argv[3] names a path, POSTs one chat request there and prints the
// status. Only the runtime and the IR codec are imported here, so what else loads is what they load.
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { normalizeSnapshot } from '../../src/ir/load.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';

const [file, path] = process.argv.slice(2);
const runtime = new ProxyRuntime({ log: pino({ level: 'silent' }) });
await runtime.apply(normalizeSnapshot(JSON.parse(readFileSync(file!, 'utf8'))));
if (path) {
  const port = Object.values(runtime.boundPorts())[0];
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.text();
  console.log(res.status);
}
await runtime.close();
