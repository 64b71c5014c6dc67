// GwPolicy `traffic.rateLimit.global` against the real thing: envoyproxy/ratelimit (built from Go modules on
// go-control-plane's types, so a wrong field number in proto/envoy/service/ratelimit fails here) on a real
// Redis, asked by a real proxy runtime serving manifests translated as the controller would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, rawRequest, startUpstream, type Upstream } from './http-forward-harness.js';
import { RateLimitService } from './ratelimit-service.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests } from './traffic-manifests.js';
import { waitFor } from '../system/harness.js';

/**
 * Year windows: envoyproxy/ratelimit's windows start at multiples of the unit since the epoch, so a day window
 * resets at every midnight UTC and a run that straddles one sees its counters start over; a year's reset is a
 * single instant a year.
 */
export const serviceConfig = `domain: gw-test
descriptors:
  - {key: route, value: shared, rate_limit: {unit: year, requests_per_unit: 3}}
  - {key: route, value: failure, rate_limit: {unit: year, requests_per_unit: 100000}}
  - {key: user, rate_limit: {unit: year, requests_per_unit: 2}}
`;

const global =
  (descriptors: string, extra = '') =>
  (port: number) =>
    `{rateLimit: {global: {url: "grpc://127.0.0.1:${port}", domain: gw-test, descriptors: [${descriptors}]${extra}}}}`;

describe('global rate limits on an Envoy rate-limit service', () => {
  let service: RateLimitService;
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let base: string;
  let hits = 0;

  beforeAll(async () => {
    service = await RateLimitService.start(serviceConfig);
    upstream = await startUpstream((_req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('upstream');
    });
    runtime = new ProxyRuntime({ log });
    const port = service.grpcPort;
    await runtime.apply(
      translatedIr(
        trafficManifests(upstream.port, [
          // Timeouts are only a guard here: a loaded test machine can take seconds to answer a call (the first
          // one opens the channel), and a call that times out is refused, which the counts would read as a bug.
          {
            name: 'shared',
            traffic: global(`{entries: [{name: route, expression: "'shared'"}]}`, ', timeout: 10s')(port),
          },
          {
            name: 'peruser',
            traffic: global(
              `{entries: [{name: user, expression: 'request.headers["x-user"]'}]}`,
              ', timeout: 10s',
            )(port),
          },
          {
            name: 'closed',
            traffic: global(`{entries: [{name: route, expression: "'failure'"}]}`, ', timeout: 5s')(port),
          },
          {
            name: 'open',
            traffic: global(
              `{entries: [{name: route, expression: "'failure'"}]}`,
              ', timeout: 5s, failureMode: FailOpen',
            )(port),
          },
          // A forwarded route has no LLM body: the entry could never be filled, so the route refuses.
          { name: 'llmbody', traffic: global(`{entries: [{name: model, expression: llmRequest.model}]}`)(port) },
        ]),
      ),
    );
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
    await service?.stop();
  });

  it('admits up to the service limit, then answers 429 with Retry-After and the service x-ratelimit headers', async () => {
    const before = hits;
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await rawRequest(`${base}/shared`));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(hits - before).toBe(3);
    expect(answers[0]?.headers['x-ratelimit-limit']).toBe('3');
    expect(answers[2]?.headers['x-ratelimit-remaining']).toBe('0');
    const refused = answers[3];
    expect(JSON.parse(refused?.body ?? '{}')).toMatchObject({ error: 'rate_limited' });
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused?.headers['retry-after']).toBe(refused?.headers['x-ratelimit-reset']);
    expect(await runtime.metrics.registry.getSingleMetricAsString('gw_rate_limited_total')).toMatch(
      /route="HTTPRoute\/default\/shared\/0"\} 1/,
    );
  });

  it('counts each descriptor value on its own, and sends no descriptor whose entry does not evaluate', async () => {
    const as = (user?: string) => rawRequest(`${base}/peruser`, user ? { headers: { 'x-user': user } } : {});
    expect([(await as('a')).status, (await as('a')).status, (await as('a')).status]).toEqual([200, 200, 429]);
    expect((await as('b')).status).toBe(200);
    // No x-user: the descriptor is left out, so nothing limits the request (as Envoy drops a descriptor an action cannot fill).
    for (let i = 0; i < 3; i++) expect((await as()).status).toBe(200);
  });

  it('refuses a forwarded route whose descriptor names the LLM request body, rather than serve it unlimited', async () => {
    const before = hits;
    const refused = await rawRequest(`${base}/llmbody`);
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'policy_not_enforced' });
    expect(hits).toBe(before);
  });

  it('honours failureMode while Redis is down, never crashes, and limits again once Redis is back', async () => {
    expect((await rawRequest(`${base}/closed`)).status).toBe(200);
    await service.killRedis();
    const closed = await rawRequest(`${base}/closed`);
    expect(closed.status).toBe(503);
    expect(JSON.parse(closed.body)).toMatchObject({ error: 'rate_limit_unavailable' });
    expect((await rawRequest(`${base}/open`)).status).toBe(200);
    await service.startRedis();
    await waitFor(
      'the closed route to be served again',
      async () => (await rawRequest(`${base}/closed`)).status === 200,
      30_000,
    );
    // The service counts again: Redis holds this route's counter.
    expect(service.counters('failure').reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });
});
