// GwPolicy `backend.http.requestTimeout` on an HTTP backend's edge, translated from manifests and served by a
// real proxy runtime: a try that gets no answer within it ends with 504, and the route's own
// `timeouts.backendRequest` wins over it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, rawRequest, startUpstream, type Upstream } from './http-forward-harness.js';
import {
  gatewayWithStaticBackend,
  gwBackendRef,
  httpRoute,
  routeBackendPolicy,
  translatedIr,
} from './translated-ir.js';

/** HTTPRoute `name` on PathPrefix `/name` to GwBackend shop with `requestTimeout`, and the rule's `timeouts` when given. */
function route(name: string, requestTimeout: string, timeouts?: string): string {
  const rule = timeouts ? `    timeouts: ${timeouts}\n` : '';
  return `${httpRoute(name, { backendRefs: gwBackendRef('shop'), rule })}${routeBackendPolicy(name, `{http: {requestTimeout: ${requestTimeout}}}`)}`;
}

describe('backend.http.requestTimeout on an HTTP backend', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let base: string;
  /** Requests to /…/hold get no answer until the test ends. */
  const held: (() => void)[] = [];

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      if (req.url?.endsWith('/hold')) held.push(() => res.end('late'));
      else res.end('fast');
    });
    runtime = new ProxyRuntime({ log });
    const manifests =
      gatewayWithStaticBackend(upstream.port) +
      route('timed', '300ms') +
      route('routewins', '60s', '{backendRequest: 100ms}');
    await runtime.apply(translatedIr(manifests));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });
  afterAll(async () => {
    for (const release of held) release();
    await runtime?.close();
    await upstream?.close();
  });

  it('ends a try that gets no answer within the timeout with 504', async () => {
    const t0 = Date.now();
    const res = await rawRequest(`${base}/timed/hold`);
    expect(res.status).toBe(504);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect((await rawRequest(`${base}/timed/ok`)).body).toBe('fast');
  });

  it("leaves the route's timeouts.backendRequest in charge when the route sets one", async () => {
    const t0 = Date.now();
    expect((await rawRequest(`${base}/routewins/hold`)).status).toBe(504);
    expect(Date.now() - t0).toBeLessThan(30_000);
  });
});
