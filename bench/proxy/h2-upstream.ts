// HTTP/1.1 vs HTTP/2 upstream forwarding, CPU per request as a ratio: one process holds the load
// generator (undici, HTTP/1.1 to the proxy), the proxy runtime and a backend that speaks both protocols,
// so the figure is the whole loopback exchange; the two routes differ only in `backend.http.version`.
// Paths alternate in slices so background load hits them alike. Run: npx tsx bench/proxy/h2-upstream.ts
import { createServer as createHttpServer } from 'node:http';
import { createServer as createH2Server } from 'node:http2';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { sniffPreface } from '../../src/proxy/http/h2c-preface.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { gatewayWithStaticBackend, translatedIr } from '../../test/proxy/translated-ir.js';

const slices = Number(process.env.BENCH_SLICES ?? 6);
const perSlice = Number(process.env.BENCH_REQUESTS ?? 2000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const payload = 'x'.repeat(1024);

const handler = (_req: unknown, res: { end(b: string): void }): void => res.end(payload);
const http1 = createHttpServer(handler);
const h2 = createH2Server(handler);
const backend = createNetServer((s) =>
  sniffPreface(
    s,
    5000,
    (x) => h2.emit('connection', x),
    (x) => http1.emit('connection', x),
  ),
);
await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r));
const route = (name: string, policy?: string): string => `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ${name}, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules: [{matches: [{path: {type: PathPrefix, value: /${name}}}], backendRefs: [{group: gw.dev, kind: GwBackend, name: up}]}]
${policy ? `---\napiVersion: gw.dev/v1alpha1\nkind: GwPolicy\nmetadata: {name: ${name}, namespace: default}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: ${name}}]\n  backend: ${policy}\n` : ''}`;
const runtime = new ProxyRuntime({ log: pino({ level: 'silent' }) });
await runtime.apply(
  translatedIr(
    gatewayWithStaticBackend((backend.address() as AddressInfo).port, 'up') +
      route('h1') +
      route('h2', '{http: {version: HTTP2}}'),
  ),
);
const base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
const agent = new Agent({ connections: concurrency });

async function run(path: string, n: number): Promise<number> {
  const cpu0 = process.cpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < n) {
        const r = await request(`${base}${path}`, { dispatcher: agent });
        await r.body.text();
        if (r.statusCode !== 200) throw new Error(`${path}: ${r.statusCode}`);
      }
    }),
  );
  const c = process.cpuUsage(cpu0);
  return (c.user + c.system) / n;
}

await run('/h1', 500);
await run('/h2', 500);
const us = { h1: 0, h2: 0 };
for (let i = 0; i < slices; i++) {
  us.h1 += await run('/h1', perSlice);
  us.h2 += await run('/h2', perSlice);
}
console.log(
  `CPU per request (client + proxy + backend, µs): HTTP/1.1 upstream ${(us.h1 / slices).toFixed(1)}, ` +
    `HTTP/2 upstream ${(us.h2 / slices).toFixed(1)}; ratio h2/h1 ${(us.h2 / us.h1).toFixed(2)}`,
);
await agent.close();
await runtime.close();
backend.close();
