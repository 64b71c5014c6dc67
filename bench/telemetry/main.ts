// Telemetry benchmark (issue 19): the proxy's CPU per forwarded request with GwPolicy frontend telemetry off,
// with an access log only, and with tracing plus an access log exported over OTLP, as ratios to "off" in one
// run. Proxy, client, upstream and OTLP sink share this process, so the same fixed work is in every figure and
// the differences are telemetry's; rounds alternate so drift on the shared machine hits each alike.
import { loadavg } from 'node:os';
import { Writable } from 'node:stream';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { translatedIr } from '../../test/proxy/translated-ir.js';
import { trafficManifests } from '../../test/proxy/traffic-manifests.js';

const REQUESTS = 3000;
const CONCURRENCY = 16;
const ROUNDS = 5;

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

const upstream = await listen((_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
// An OTLP/HTTP sink that accepts every export, as a Collector does.
let exported = 0;
const sink = await listen((req, res) => {
  req.resume().on('end', () => {
    exported++;
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
});
const otlp = `http://127.0.0.1:${sink.port}`;

const cases = {
  off: '',
  'access log': '{accessLog: {}}',
  'tracing + access log over OTLP': `{tracing: {url: "${otlp}"}, accessLog: {otlp: {url: "${otlp}"}}}`,
};

async function proxyFor(frontend: string): Promise<{ runtime: ProxyRuntime; port: number }> {
  // Lines go through pino's serializer to a sink that drops them: the cost measured is the proxy's, not a disk's.
  const discard = new Writable({ write: (_c, _e, done) => done() });
  const runtime = new ProxyRuntime({ log: pino({ level: 'info' }, discard) });
  const policy = frontend
    ? `
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: telemetry, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  frontend: ${frontend}
`
    : '';
  await runtime.apply(translatedIr(trafficManifests(upstream.port, [{ name: 'app', traffic: '{}' }], policy)));
  return { runtime, port: Object.values(runtime.boundPorts())[0] as number };
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
function get(port: number, i: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: `/app/${i}`, agent }, (res) => {
      res
        .resume()
        .on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject).end();
  });
}

/** CPU microseconds of this process per request over REQUESTS requests. */
async function cpuPerRequest(port: number): Promise<number> {
  let next = 0;
  const t0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) await get(port, next++);
    }),
  );
  const u = process.cpuUsage(t0);
  return (u.user + u.system) / REQUESTS;
}

const proxies = await Promise.all(Object.entries(cases).map(async ([name, fe]) => ({ name, ...(await proxyFor(fe)) })));
for (const p of proxies) await cpuPerRequest(p.port); // warm-up: JIT, connection pools, exporters
const samples = new Map<string, number[]>(proxies.map((p) => [p.name, []]));
for (let round = 0; round < ROUNDS; round++)
  for (const p of proxies) samples.get(p.name)?.push(await cpuPerRequest(p.port));

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const off = median(samples.get('off') ?? []);
console.log(
  `CPU per forwarded request (median of ${ROUNDS} rounds of ${REQUESTS}, proxy + client + upstream; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}):`,
);
for (const [name, xs] of samples) {
  const m = median(xs);
  console.log(
    `  ${name.padEnd(32)} ${m.toFixed(1).padStart(7)} µs   ratio to off ${(m / off).toFixed(2)}   +${(m - off).toFixed(1)} µs`,
  );
}
for (const p of proxies) await p.runtime.close();
console.log(`OTLP exports received by the sink: ${exported}`);
agent.destroy();
upstream.server.close();
sink.server.close();
