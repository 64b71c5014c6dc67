// Global rate-limit benchmark (issue 40): per forwarded request, the CPU and the latency a
// `traffic.rateLimit.global` check (one ShouldRateLimit call to envoyproxy/ratelimit on a local Redis,
// test/ratelimit, `make ratelimit`) adds, against a local limit (`rateLimit.local`, a bucket in the proxy)
// and no limit, as ratios in the same run. Proxy, client and upstream share this process (their CPU is
// measured together); the service's own CPU comes from /proc (Redis's is not counted). Rounds alternate so
// drift on the shared machine hits each side alike. Limits are set high enough never to refuse.
import { Agent, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { translatedIr } from '../../test/proxy/translated-ir.js';
import { trafficManifests } from '../../test/proxy/traffic-manifests.js';
import { RateLimitService } from '../../test/proxy/ratelimit-service.js';
import { countedRounds, getter, printCountedRounds, type CountedRoundsOptions } from '../lib/rounds.js';

const REQUESTS = 800;
const CONCURRENCY = 8;
const SEQUENTIAL = 150;
const ROUNDS = 3;

const upstream = createServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
const upstreamPort = (upstream.address() as AddressInfo).port;
const service = await RateLimitService.start(`domain: bench
descriptors:
  - {key: route, value: global, rate_limit: {unit: day, requests_per_unit: 1000000000}}
`);
const runtime = new ProxyRuntime({ log: pino({ level: 'info' }, new Writable({ write: (_c, _e, done) => done() })) });
await runtime.apply(
  translatedIr(
    trafficManifests(upstreamPort, [
      { name: 'plain', traffic: '{}' },
      { name: 'local', traffic: '{rateLimit: {local: [{requests: 1000000000, unit: Seconds}]}}' },
      {
        name: 'global',
        traffic: `{rateLimit: {global: {url: "grpc://127.0.0.1:${service.grpcPort}", domain: bench, timeout: 2s, descriptors: [{entries: [{name: route, expression: "'global'"}]}]}}}`,
      },
    ]),
  ),
);
const port = Object.values(runtime.boundPorts())[0] as number;
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

const rounds: CountedRoundsOptions = {
  sides: { 'no limit': '/plain', 'local limit': '/local', 'global limit (Redis)': '/global' },
  get: getter(port, agent),
  helperPid: service.pid,
  requests: REQUESTS,
  concurrency: CONCURRENCY,
  sequential: SEQUENTIAL,
  rounds: ROUNDS,
};
printCountedRounds(rounds, await countedRounds(rounds), {
  title: 'global vs local rate limit',
  baseline: 'local limit',
  versus: 'vs local',
  helper: 'service',
  pad: 21,
});
agent.destroy();
await runtime.close();
await service.stop();
upstream.close();
