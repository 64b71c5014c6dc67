// Benchmark: the cost of backend.auth.oauthTokenExchange per request through the real proxy runtime —
// a cached exchange against no backend auth, and a cache miss (maxEntries 0: every request exchanges at
// oidc-provider with the token-exchange grant, test/support/oidc/token-exchange.ts). Everything runs in
// this process (client, proxy, upstream, authorization server), so figures are CPU per request of the
// whole process. Absolute figures move with the machine's load (two cores shared by many jobs), so the
// result is a ratio: in every round the three sides run back to back (order alternating), each side's CPU
// per request is divided by the plain side's of the same round, and the median over rounds is reported.
// Bounded: BENCH_SECONDS per side (default 6) over BENCH_ROUNDS rounds (default 6).
// Run: npx tsx bench/backend-identity/main.ts
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { EXCHANGE_BASIC_SECRET, startExchangeServer } from '../../test/support/oidc/token-exchange.js';
import { startUpstream } from '../../test/proxy/http-forward-harness.js';
import { translatedIr } from '../../test/proxy/translated-ir.js';
import { trafficManifests } from '../../test/proxy/traffic-manifests.js';
import { printTimedRounds, timedRounds, type TimedRoundsOptions } from '../lib/rounds.js';

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

const rounds: TimedRoundsOptions = {
  sides: ['plain', 'cached', 'miss'],
  send: async (side) => {
    const res = await request(`${base}/${side}/x`, {
      dispatcher: agent,
      headers: { authorization: `Bearer ${token}` },
    });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`/${side}/x answered ${res.statusCode}`);
  },
  seconds: Number(process.env.BENCH_SECONDS ?? 6),
  rounds: Number(process.env.BENCH_ROUNDS ?? 6),
  concurrency,
};
printTimedRounds('backend-identity', rounds, await timedRounds(rounds));
await runtime.close();
await agent.close();
await upstream.close();
await x.close();
