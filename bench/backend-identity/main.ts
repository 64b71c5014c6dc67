// Benchmark: the cost of backend.auth.oauthTokenExchange per request through the real proxy runtime —
// a cached exchange against no backend auth, and a cache miss (maxEntries 0: every request exchanges at
// oidc-provider with the token-exchange grant, test/support/oidc/token-exchange.ts). Everything runs in
// this process (client, proxy, upstream, authorization server), so figures are CPU per request of the
// whole process; the cached side's difference to the plain side is the proxy's added cost, as the
// client and upstream do the same work on both. Sides alternate in rounds. Bounded: BENCH_SECONDS per
// side (default 4). Run: npx tsx bench/backend-identity/main.ts
import { loadavg } from 'node:os';
import { importJWK, SignJWT, type CryptoKey } from 'jose';
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { makeSigningKey, startProvider } from '../../test/support/oidc/provider.js';
import { registerExchangeGrants, TOKEN_EXCHANGE } from '../../test/support/oidc/token-exchange.js';
import { startUpstream } from '../../test/proxy/http-forward-harness.js';
import { translatedIr } from '../../test/proxy/translated-ir.js';
import { trafficManifests } from '../../test/proxy/traffic-manifests.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
const concurrency = 8;

const users = await makeSigningKey('users');
const userKey = (await importJWK(users.privateJwk, 'RS256')) as CryptoKey;
const token = await new SignJWT({ sub: 'bench-user' })
  .setProtectedHeader({ alg: 'RS256', kid: 'users' })
  .setIssuer('https://users.bench')
  .setIssuedAt()
  .setExpirationTime('2h')
  .sign(userKey);
const as = await startProvider({
  issuerPath: '/as',
  routes: { authorization: '/as/auth', token: '/as/token', jwks: '/as/jwks' },
  clients: [
    {
      client_id: 'gw',
      client_secret: 'bench-secret',
      grant_types: [TOKEN_EXCHANGE],
      response_types: [],
      redirect_uris: [],
    },
  ],
  key: await makeSigningKey('as'),
  resource: { default: 'https://tools.bench', audience: (i) => i, scope: 'tools' },
});
registerExchangeGrants(as.provider, { keys: [users.publicJwk] });
const upstream = await startUpstream((_req, res) => res.writeHead(200).end('ok'));
const exchange = (extra: string): string =>
  `{}\n  backend: {auth: {oauthTokenExchange: {url: "${as.origin}", path: /as/token, clientAuth: {clientId: gw, secretRef: {name: as}}${extra}}}}`;
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
      `apiVersion: v1\nkind: Secret\nmetadata: {name: as, namespace: default}\ndata: {clientSecret: ${Buffer.from('bench-secret').toString('base64')}}\n`,
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
await side('/cached/x', 300); // warm-up: the first exchange, JIT
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? ['plain', 'cached', 'miss'] : ['miss', 'cached', 'plain'];
  for (const name of order) {
    const got = await side(`/${name}/x`, (seconds * 1000) / rounds);
    const t = (totals[name] ??= { n: 0, cpu: 0 });
    t.n += got.n;
    t.cpu += got.cpuUs * got.n;
  }
}
console.log(
  `backend-identity bench (load average ${loadavg()[0]?.toFixed(2)}; ${seconds}s per side, ${concurrency} at a time)`,
);
for (const [name, t] of Object.entries(totals))
  console.log(
    `  ${name.padEnd(7)} ${(t.n / seconds).toFixed(0).padStart(6)} req/s  ${(t.cpu / t.n).toFixed(0).padStart(6)} µs CPU/request`,
  );
const plain = totals.plain,
  cached = totals.cached;
if (plain && cached)
  console.log(`  cached exchange adds ${(cached.cpu / cached.n - plain.cpu / plain.n).toFixed(0)} µs CPU per request`);
await runtime.close();
await agent.close();
await upstream.close();
await as.close();
