// Benchmark: the cost of passive health (`backend.health`) per request through the real proxy runtime — a
// route splitting over two HTTP backends with health against the same route without. Everything runs in
// this process (client, proxy, upstream), so figures are CPU per request of the whole process. Absolute
// figures move with the machine's load (two cores shared by many jobs), so the result is a ratio: in every
// round both sides run back to back (order alternating), the health side's CPU per request is divided by
// the plain side's of the same round, and the median over rounds is reported.
// Bounded: BENCH_SECONDS per side (default 6) over BENCH_ROUNDS rounds (default 6).
// Run: npx tsx bench/health/main.ts
import { loadavg } from 'node:os';
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { OutlierDetector, outlierSettings, unhealthyAnswer } from '../../src/proxy/policy/outlier.js';
import { startUpstream } from '../../test/proxy/http-forward-harness.js';
import { GATEWAY_WEB, routeBackendPolicy, translatedIr } from '../../test/proxy/translated-ir.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 6);
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
const concurrency = 8;

const upstream = await startUpstream((_req, res) => res.writeHead(200).end('ok'));
const backend = (name: string): string => `---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec: {static: {host: 127.0.0.1, port: ${upstream.port}}}
`;
const route = (name: string): string => `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ${name}, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /${name}}}]
    backendRefs: [{group: gw.dev, kind: GwBackend, name: one}, {group: gw.dev, kind: GwBackend, name: two}]
`;
const runtime = new ProxyRuntime({ log: pino({ level: 'silent' }) });
await runtime.apply(
  translatedIr(
    [
      GATEWAY_WEB,
      backend('one'),
      backend('two'),
      route('plain'),
      route('health'),
      routeBackendPolicy('health', '{health: {consecutiveFailures: 5}}'),
    ].join(''),
  ),
);
const base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
const agent = new Agent({ connections: concurrency });

/** Requests to `path` for `ms`, `concurrency` at a time: count and CPU microseconds per request. */
async function side(path: string, ms: number): Promise<{ n: number; cpuUs: number }> {
  const until = Date.now() + ms;
  const cpu = process.cpuUsage();
  let n = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        const res = await request(`${base}${path}`, { dispatcher: agent });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}`);
        n++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { n, cpuUs: (used.user + used.system) / n };
}

const totals: Record<string, { n: number; cpu: number }> = {};
const ratios: number[] = [];
await side('/plain/x', 300); // warm-up: connections, JIT
await side('/health/x', 300);
const loadBefore = loadavg()[0] ?? 0;
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? ['plain', 'health'] : ['health', 'plain'];
  const round: Record<string, number> = {};
  for (const name of order) {
    const got = await side(`/${name}/x`, (seconds * 1000) / rounds);
    const t = (totals[name] ??= { n: 0, cpu: 0 });
    t.n += got.n;
    t.cpu += got.cpuUs * got.n;
    round[name] = got.cpuUs;
  }
  ratios.push((round.health ?? 0) / (round.plain ?? 1));
}
const median = (v: number[]): number => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? (s[(s.length - 1) / 2] ?? 0) : ((s[s.length / 2 - 1] ?? 0) + (s[s.length / 2] ?? 0)) / 2;
};
console.log(
  `health bench (load average ${loadBefore.toFixed(2)} before, ${(loadavg()[0] ?? 0).toFixed(2)} after; ${seconds}s per side in ${rounds} rounds, ${concurrency} at a time)`,
);
for (const [name, t] of Object.entries(totals))
  console.log(
    `  ${name.padEnd(7)} ${(t.n / seconds).toFixed(0).padStart(6)} req/s  ${(t.cpu / t.n).toFixed(0).padStart(6)} µs CPU/request`,
  );
console.log(
  `  health / plain CPU per request: median ${median(ratios).toFixed(2)}× (rounds: ${ratios.map((r) => r.toFixed(2)).join(', ')})`,
);
// The detector alone, as a request meets it: one choice (is either member ejected?) and one success.
const detector = new OutlierDetector(Date.now);
const calls = 2_000_000;
const t0 = process.hrtime.bigint();
for (let i = 0; i < calls; i++) {
  detector.isEjected('route', i & 1 ? 'one' : 'two');
  detector.succeeded('route', i & 1 ? 'one' : 'two', 1);
}
console.log(
  `  detector: ${(Number(process.hrtime.bigint() - t0) / calls).toFixed(0)} ns per request (a choice and a success)`,
);
// `unhealthyCondition` as an answer meets it: the headers flattened into `response` and one CEL evaluation.
const condition = outlierSettings({
  consecutiveFailures: 5,
  baseEjectionMs: 30_000,
  maxEjectionPercent: 50,
  maxEjectionMs: 300_000,
  source: '',
  unhealthyCondition: "response.code >= 500 || 'x-degraded' in response.headers",
});
const answerHeaders = { 'content-type': 'application/json', 'content-length': '42', date: new Date().toUTCString() };
const evaluations = 200_000;
const t1 = process.hrtime.bigint();
for (let i = 0; i < evaluations; i++) unhealthyAnswer(condition, i & 1 ? 200 : 503, answerHeaders);
console.log(
  `  unhealthyCondition: ${(Number(process.hrtime.bigint() - t1) / evaluations).toFixed(0)} ns per answer (3 headers, one CEL evaluation)`,
);
await runtime.close();
await agent.close();
await upstream.close();
