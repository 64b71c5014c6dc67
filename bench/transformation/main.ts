// Benchmark: the CPU cost of GwPolicy traffic.transformation per call through the real proxy runtime — a
// route with 5 header transformations (3 set from CEL over the request, 1 add, 1 remove) and a body built
// from the request's JSON with 2 fields set, against the same route without them. Both sides POST the same
// JSON body to the same upstream. Client, proxy and upstream share this process, so figures are CPU per
// call of the whole process; the machine's load moves absolute figures, so the result is a ratio: in every
// round both sides run back to back (order alternating), and the median of the per-round ratios is reported.
// Bounded: BENCH_SECONDS per side (default 6) over BENCH_ROUNDS rounds (default 6).
// Run: npx tsx bench/transformation/main.ts
import { loadavg } from 'node:os';
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { applyStep, compileTransformation, messageView } from '../../src/proxy/policy/transformation.js';
import { readAll, startUpstream } from '../../test/proxy/http-forward-harness.js';
import { translatedIr } from '../../test/proxy/translated-ir.js';
import { trafficManifests } from '../../test/proxy/traffic-manifests.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 6);
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
const concurrency = 8;

const upstream = await startUpstream((req, res) => {
  void readAll(req).then((body) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
});
const headers = [
  `set: [{name: X-Tenant, value: "request.headers['x-user'] + '@' + request.host"}, {name: X-Route, value: "'shaped'"}, {name: X-Method, value: request.method}]`,
  `add: [{name: X-Via, value: "'gw'"}]`,
  `remove: [X-Debug]`,
].join(', ');
const body = `body: "{'model': 'gpt-small', 'user': request.headers['x-user'], 'messages': request.json.messages}"`;
const runtime = new ProxyRuntime({ log: pino({ level: 'silent' }) });
await runtime.apply(
  translatedIr(
    trafficManifests(upstream.port, [
      { name: 'plain', traffic: '{}' },
      { name: 'shaped', traffic: `{transformation: {request: {${headers}, ${body}}}}` },
    ]),
  ),
);
const base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
const agent = new Agent({ connections: concurrency });
const payload = JSON.stringify({
  model: 'gpt-large',
  messages: [
    { role: 'system', content: 'You answer briefly.' },
    { role: 'user', content: 'What is the capital of France?' },
  ],
  max_tokens: 64,
});

/** Calls to `path` for `ms`, `concurrency` at a time: count and CPU microseconds per call. */
async function side(path: string, ms: number): Promise<{ n: number; cpuUs: number }> {
  const until = Date.now() + ms;
  const cpu = process.cpuUsage();
  let n = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        const res = await request(`${base}${path}`, {
          dispatcher: agent,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-user': 'ann', 'x-debug': '1' },
          body: payload,
        });
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
await side('/plain/x', 500); // warm-up: JIT, CEL library load, connections
await side('/shaped/x', 500);
const loadBefore = loadavg()[0] ?? 0;
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? ['plain', 'shaped'] : ['shaped', 'plain'];
  const round: Record<string, number> = {};
  for (const name of order) {
    const got = await side(`/${name}/x`, (seconds * 1000) / rounds);
    const t = (totals[name] ??= { n: 0, cpu: 0 });
    t.n += got.n;
    t.cpu += got.cpuUs * got.n;
    round[name] = got.cpuUs;
  }
  ratios.push((round.shaped ?? 0) / (round.plain ?? 1));
}
const sorted = [...ratios].sort((a, b) => a - b);
const mid = sorted.length / 2;
const median = sorted.length % 2 ? (sorted[Math.floor(mid)] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
console.log(
  `transformation bench (load average ${loadBefore.toFixed(2)} before, ${(loadavg()[0] ?? 0).toFixed(2)} after; ${seconds}s per side in ${rounds} rounds, ${concurrency} at a time)`,
);
for (const [name, t] of Object.entries(totals))
  console.log(
    `  ${name.padEnd(7)} ${(t.n / seconds).toFixed(0).padStart(6)} calls/s  ${(t.cpu / t.n).toFixed(0).padStart(6)} µs CPU/call`,
  );
console.log(
  `  shaped / plain CPU per call: median ${median.toFixed(3)}× (goal ≤ 1.10×; rounds: ${ratios.map((r) => r.toFixed(3)).join(', ')})`,
);
// The engine alone, as the forwarder calls it per request (the same plan as the shaped route): CPU per call of
// the request view, the 5 header edits and the body, without the HTTP around it.
const plan = compileTransformation(
  {
    request: {
      set: [
        { name: 'X-Tenant', expression: "request.headers['x-user'] + '@' + request.host" },
        { name: 'X-Route', expression: "'shaped'" },
        { name: 'X-Method', expression: 'request.method' },
      ],
      add: [{ name: 'X-Via', expression: "'gw'" }],
      remove: ['X-Debug'],
      body: "{'model': 'gpt-small', 'user': request.headers['x-user'], 'messages': request.json.messages}",
    },
    response: null,
  },
  'traffic.transformation',
  (path, message) => {
    throw new Error(`${path}: ${message}`);
  },
);
const step = plan?.request;
if (!step) throw new Error('no request step');
const message = {
  method: 'POST',
  path: '/shaped/x',
  headers: { host: 'gw.local', 'content-type': 'application/json', 'x-user': 'ann', 'x-debug': '1' },
  body: Buffer.from(payload),
};
const engineCalls = 20_000;
const engineCpu = process.cpuUsage();
for (let i = 0; i < engineCalls; i++) {
  const out = applyStep(step, message, { request: messageView(message, step) }, 'traffic.transformation.request');
  if (out instanceof Error) throw out;
}
const engineUsed = process.cpuUsage(engineCpu);
console.log(`  engine alone: ${((engineUsed.user + engineUsed.system) / engineCalls).toFixed(1)} µs CPU per request`);
await runtime.close();
await agent.close();
await upstream.close();
