// Benchmark: the cost of passive health (`backend.health`) per request through the real proxy runtime — a
// route splitting over two HTTP backends with health against the same route without. Everything runs in
// this process (client, proxy, upstream), so figures are CPU per request of the whole process. Absolute
// figures move with the machine's load (two cores shared by many jobs), so the result is a ratio: in every
// round both sides run back to back (order alternating), the health side's CPU per request is divided by
// the plain side's of the same round, and the median over rounds is reported.
// Bounded: BENCH_SECONDS per side (default 6) over BENCH_ROUNDS rounds (default 6).
// Run: npx tsx bench/health/main.ts
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { OutlierDetector, outlierSettings, unhealthyAnswer } from '../../src/proxy/policy/outlier.js';
import { startUpstream } from '../../test/proxy/http-forward-harness.js';
import {
  GATEWAY_WEB,
  gwBackendRef,
  httpRoute,
  routeBackendPolicy,
  translatedIr,
} from '../../test/proxy/translated-ir.js';
import { printTimedRounds, timedRounds, type TimedRoundsOptions } from '../lib/rounds.js';

const concurrency = 8;

const upstream = await startUpstream((_req, res) => res.writeHead(200).end('ok'));
const backend = (name: string): string => `---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec: {static: {host: 127.0.0.1, port: ${upstream.port}}}
`;
const route = (name: string): string =>
  httpRoute(name, { backendRefs: `${gwBackendRef('one')}, ${gwBackendRef('two')}` });
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

const rounds: TimedRoundsOptions = {
  sides: ['plain', 'health'],
  send: async (side) => {
    const res = await request(`${base}/${side}/x`, { dispatcher: agent });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`/${side}/x answered ${res.statusCode}`);
  },
  seconds: Number(process.env.BENCH_SECONDS ?? 6),
  rounds: Number(process.env.BENCH_ROUNDS ?? 6),
  concurrency,
};
printTimedRounds('health', rounds, await timedRounds(rounds));
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
