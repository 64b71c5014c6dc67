// Benchmark: the cost of backend.auth.oauthTokenExchange per request through the real proxy runtime —
// a cached exchange against no backend auth, and a cache miss (maxEntries 0: every request exchanges at
// oidc-provider with the token-exchange grant, test/support/oidc/token-exchange.ts). Everything runs in
// this process (client, proxy, upstream, authorization server), so figures are CPU per request of the
// whole process. Absolute figures move with the machine's load (two cores shared by many jobs), so the
// result is a ratio: in every round the three sides run back to back (order alternating), each side's CPU
// per request is divided by the plain side's of the same round, and the median over rounds is reported.
// Bounded: BENCH_SECONDS per side (default 6) over BENCH_ROUNDS rounds (default 6).
// Run: npx tsx bench/backend-identity/main.ts
import { loadavg } from 'node:os';
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { EXCHANGE_BASIC_SECRET, startExchangeServer } from '../../test/support/oidc/token-exchange.js';
import { startUpstream } from '../../test/proxy/http-forward-harness.js';
import { translatedIr } from '../../test/proxy/translated-ir.js';
import { trafficManifests } from '../../test/proxy/traffic-manifests.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 6);
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
const concurrency = 8;

const x = await startExchangeServer('https://users.bench');
const token = await x.userToken('bench-user');
const upstream = await startUpstream((_req, res) => res.writeHead(200).end('ok'));
const exchange = (extra: string): string =>
  `{}\n  backend: {auth: {oauthTokenExchange: {url: "${x.as.origin}", path: /as/token, clientAuth: {clientId: gw-basic, secretRef: {name: as}}${extra}}}}`;
const runtime = new ProxyRuntime({ log: pino({ level: 'silent' }), security: createRouteSecurity() });
await runtime.apply(
  translatedIr(
    trafficManifests(
      upstream.port,
      [
        { name: 'plain', traffic: '{}' },
        { name: 'cached', traffic: exchange('') },
        { name: 'miss', traffic: exchange(', cache: {inMemory: {maxEntries: 0}}') },
      ],
      `apiVersion: v1\nkind: Secret\nmetadata: {name: as, namespace: default}\ndata: {clientSecret: ${Buffer.from(EXCHANGE_BASIC_SECRET).toString('base64')}}\n`,
    ),
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
        const res = await request(`${base}${path}`, {
          dispatcher: agent,
          headers: { authorization: `Bearer ${token}` },
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
/** Per round: each side's CPU per request divided by the plain side's. */
const ratios: Record<string, number[]> = { cached: [], miss: [] };
await side('/cached/x', 300); // warm-up: the first exchange, JIT
await side('/miss/x', 300);
await side('/plain/x', 300);
const loadBefore = loadavg()[0] ?? 0;
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? ['plain', 'cached', 'miss'] : ['miss', 'cached', 'plain'];
  const round: Record<string, number> = {};
  for (const name of order) {
    const got = await side(`/${name}/x`, (seconds * 1000) / rounds);
    const t = (totals[name] ??= { n: 0, cpu: 0 });
    t.n += got.n;
    t.cpu += got.cpuUs * got.n;
    round[name] = got.cpuUs;
  }
  for (const name of ['cached', 'miss']) ratios[name]?.push((round[name] ?? 0) / (round.plain ?? 1));
}
const median = (v: number[]): number => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? (s[(s.length - 1) / 2] ?? 0) : ((s[s.length / 2 - 1] ?? 0) + (s[s.length / 2] ?? 0)) / 2;
};
console.log(
  `backend-identity bench (load average ${loadBefore.toFixed(2)} before, ${(loadavg()[0] ?? 0).toFixed(2)} after; ${seconds}s per side in ${rounds} rounds, ${concurrency} at a time)`,
);
for (const [name, t] of Object.entries(totals))
  console.log(
    `  ${name.padEnd(7)} ${(t.n / seconds).toFixed(0).padStart(6)} req/s  ${(t.cpu / t.n).toFixed(0).padStart(6)} µs CPU/request`,
  );
for (const [name, v] of Object.entries(ratios))
  console.log(
    `  ${name} / plain CPU per request: median ${median(v).toFixed(2)}× (rounds: ${v.map((r) => r.toFixed(2)).join(', ')})`,
  );
await runtime.close();
await agent.close();
await upstream.close();
await x.close();
