// GwPolicy traffic timeouts, retries and header modifiers on forwarded routes: translated from manifests,
// served by a real runtime to a real node:http upstream.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, rawRequest, readAll, startUpstream, type Upstream } from './http-forward-harness.js';
import { waitFor } from './harness.js';
import { freePort } from './ports.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests } from './traffic-manifests.js';

/** The behaviour under test: /timed and /ruled answer after the policy's 100 ms timeout, well within the rule's 2 s. */
const LATE_MS = 300;
/** The behaviour under test: /stream sends its first bytes, then the connection drops mid-body. */
const CUT_AFTER_MS = 30;

describe('GwPolicy traffic settings on forwarded HTTP routes', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let base: string;
  /** Tries seen upstream per request id (header x-id). */
  const tries = new Map<string, number>();

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      const id = String(req.headers['x-id'] ?? req.url);
      const n = (tries.get(id) ?? 0) + 1;
      tries.set(id, n);
      const url = req.url ?? '';
      if (url.startsWith('/timed') || url.startsWith('/ruled')) {
        setTimeout(() => res.writeHead(200).end('late'), LATE_MS);
        return;
      }
      if (url.startsWith('/flaky')) {
        void readAll(req).then((body) => {
          if (n < 3) res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
          else res.writeHead(200, { 'content-type': 'text/plain' }).end(`try ${n} body ${body.toString()}`);
        });
        return;
      }
      if (url.startsWith('/stream')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial ');
        setTimeout(() => res.socket?.destroy(), CUT_AFTER_MS);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-who': 'upstream' }).end(JSON.stringify(req.headers));
    });
    const dead = await freePort();
    runtime = new ProxyRuntime({ log });
    await runtime.apply(
      translatedIr(
        trafficManifests(
          upstream.port,
          [
            { name: 'timed', traffic: '{timeouts: {request: 100ms}}' },
            // The HTTPRoute rule's own timeouts win over the policy's.
            { name: 'ruled', traffic: '{timeouts: {request: 100ms}}', rule: 'timeouts: {request: 2s}' },
            { name: 'flaky', traffic: '{retry: {attempts: 3, backoff: 10ms, codes: [503]}}' },
            { name: 'flaky-out', backend: 'up', traffic: '{retry: {attempts: 1, backoff: 10ms, codes: [503]}}' },
            { name: 'dead', backend: 'gone', traffic: '{retry: {attempts: 2, backoff: 10ms}}' },
            { name: 'stream', traffic: '{retry: {attempts: 3, backoff: 10ms, codes: [503]}}' },
            {
              name: 'hdr',
              traffic:
                '{headerModifiers: {request: {set: [{name: X-Tenant, value: policy}], add: [{name: X-Both, value: policy}], remove: [X-Drop]}, response: {set: [{name: X-Who, value: policy}], add: [{name: X-Policy, value: "yes"}]}}}',
              rule: 'filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: X-Tenant, value: route}]}}, {type: ResponseHeaderModifier, responseHeaderModifier: {set: [{name: X-Who, value: route}]}}]',
            },
          ],
          `apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: gone, namespace: default}
spec:
  static: {host: 127.0.0.1, port: ${dead}}
`,
        ),
      ),
    );
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
  });

  it('answers 504 when the policy request timeout passes before the backend responds', async () => {
    const res = await rawRequest(`${base}/timed`, { headers: { 'x-id': 'timed' } });
    expect(res.status).toBe(504);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'gateway_timeout' });
  });

  it('uses the HTTPRoute rule timeouts instead of the policy ones', async () => {
    const res = await rawRequest(`${base}/ruled`, { headers: { 'x-id': 'ruled' } });
    expect(res.status).toBe(200);
    expect(res.body).toBe('late');
  });

  it('retries a POST on 503 with its body until the backend succeeds, and counts the retries', async () => {
    const res = await rawRequest(`${base}/flaky`, {
      method: 'POST',
      headers: { 'x-id': 'flaky-1', 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(res.status).toBe(200);
    expect(res.body).toBe('try 3 body hello');
    expect(tries.get('flaky-1')).toBe(3);
    const metric = await runtime.metrics.registry.getSingleMetricAsString('gw_upstream_retries_total');
    expect(metric).toMatch(/gw_upstream_retries_total\{backend="[^"]*"\} 2/);
  });

  it('passes the last 503 on when the retries run out', async () => {
    const res = await rawRequest(`${base}/flaky-out`, { headers: { 'x-id': 'flaky-out-1' } });
    expect({ status: res.status, body: res.body }).toEqual({ status: 503, body: 'busy' });
    expect(tries.get('flaky-out-1')).toBe(2);
  });

  it('retries a connect failure with the default policy and answers 503 when every try fails', async () => {
    const res = await rawRequest(`${base}/dead`);
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'backend_unavailable' });
    const failures = await runtime.metrics.registry.getSingleMetricAsString('gw_upstream_failures_total');
    expect(failures).toMatch(/backend="[^"]*gone[^"]*",reason="connect"\} 3/);
    const retries = await runtime.metrics.registry.getSingleMetricAsString('gw_upstream_retries_total');
    expect(retries).toMatch(/backend="[^"]*gone[^"]*"\} 2/);
  });

  it('buffers a chunked body for a retried route and answers 413 past the limit without contacting the backend', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${base}/flaky`, { method: 'POST', headers: { 'x-id': 'big' }, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write(Buffer.alloc(1024 * 1024));
      req.write(Buffer.alloc(1024 * 1024));
      req.end(Buffer.alloc(1024));
    });
    expect(status).toBe(413);
    expect(tries.get('big')).toBeUndefined();
  });

  it('does not retry once the response has started streaming to the client', async () => {
    const failuresCounted = async (): Promise<number> => {
      const text = await runtime.metrics.registry.getSingleMetricAsString('gw_upstream_failures_total');
      return [...text.matchAll(/^gw_upstream_failures_total\{.*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
    };
    const failuresBefore = await failuresCounted();
    const res = await rawRequest(`${base}/stream`, { headers: { 'x-id': 'stream-1' } }).catch((err: Error) => err);
    // The body is cut: either the client sees the reset or a truncated body, never a second try.
    if (!(res instanceof Error)) expect(res.body).toBe('partial ');
    // The proxy counts an upstream failure once it has given up on the request (no try left to make).
    await waitFor(async () => (await failuresCounted()) > failuresBefore);
    expect(tries.get('stream-1')).toBe(1);
  });

  it('applies the policy header modifiers, then the route filters, on request and response', async () => {
    const res = await rawRequest(`${base}/hdr`, { headers: { 'x-drop': 'gone', 'x-both': 'client' } });
    expect(res.status).toBe(200);
    const seen = JSON.parse(res.body) as Record<string, string>;
    expect(seen['x-tenant']).toBe('route');
    expect(seen['x-both']).toBe('client,policy');
    expect(seen['x-drop']).toBeUndefined();
    expect(res.headers['x-who']).toBe('route');
    expect(res.headers['x-policy']).toBe('yes');
  });
});
