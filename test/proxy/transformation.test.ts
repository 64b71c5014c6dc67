// GwPolicy `traffic.transformation`, `backend.transformation` and conditional direct responses on forwarded
// HTTP routes: translated from manifests, served by a real runtime to a real node:http upstream that records
// what it received. Each case would fail if the setting were skipped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, rawRequest, readAll, startUpstream, type Upstream } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests } from './traffic-manifests.js';

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

const apiKey = 'sk-tenant-blue-0123456789';
const keys = `apiVersion: v1
kind: Secret
metadata: {name: keys, namespace: default}
data: {blue: ${Buffer.from(JSON.stringify({ key: apiKey, metadata: { tenant: 'blue' } })).toString('base64')}}
`;
/** A second GwBackend on the same upstream whose own policies transform what is sent to it. */
const shaped = (port: number): string => `apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: shaped, namespace: default}
spec:
  static: {host: 127.0.0.1, port: ${port}}
  policies:
    transformation:
      request: {set: [{name: X-Edge, value: "'edge saw ' + request.headers['x-route']"}]}
      response: {set: [{name: X-Edge-Code, value: "string(response.code)"}]}
`;

describe('GwPolicy transformations and conditional direct responses on forwarded HTTP routes', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let base: string;
  const seen: Seen[] = [];
  const last = (): Seen => {
    const s = seen.at(-1);
    if (!s) throw new Error('the upstream received nothing');
    return s;
  };

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      void readAll(req).then((body) => {
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers, body: body.toString() });
        const tries = seen.filter((s) => s.headers['x-id'] && s.headers['x-id'] === headers['x-id']).length;
        if (req.url?.startsWith('/retried') && tries < 2) {
          res.writeHead(503).end('busy');
          return;
        }
        res
          .writeHead(200, { 'content-type': 'application/json', 'x-who': 'upstream', 'x-secret': 'backend-internal' })
          .end(JSON.stringify({ answer: 42, internal: 'do not show', url: req.url }));
      });
    });
    const manifests = trafficManifests(
      upstream.port,
      [
        {
          name: 'headers',
          traffic: `{transformation: {request: {set: [{name: X-Tenant, value: "request.headers['x-user'] + '@' + request.host"}, {name: ':path', value: "'/rewritten' + request.path"}], add: [{name: X-Via, value: "'gw-' + request.method"}], remove: [X-Drop]}, response: {set: [{name: X-Status, value: "string(response.code) + ' ' + response.headers['x-who']"}], remove: [X-Secret]}}}`,
        },
        {
          name: 'body',
          traffic: `{transformation: {request: {body: "{'model': request.json.model, 'tenant': request.headers['x-user']}"}, response: {body: "{'answer': response.json.answer, 'path': request.path}"}}}`,
        },
        {
          name: 'fails',
          traffic: `{transformation: {request: {set: [{name: X-Ok, value: "'fine'"}, {name: X-Needs, value: "request.headers['x-missing']"}]}}}`,
        },
        {
          name: 'limited',
          traffic: `{rateLimit: {local: [{requests: 1, unit: Minutes}]}, transformation: {request: {set: [{name: X-Needs, value: "request.headers['x-missing']"}]}}}`,
        },
        {
          name: 'keyed',
          traffic: `{apiKeyAuthentication: {secretRef: {name: keys}}, transformation: {request: {set: [{name: X-Tenant, value: apiKey.tenant}], remove: [Authorization]}}}`,
        },
        {
          name: 'retried',
          traffic: `{retry: {attempts: 2, backoff: 5ms, codes: [503]}, transformation: {request: {body: "'edited ' + request.body"}}}`,
        },
        {
          name: 'edge',
          backend: 'shaped',
          traffic: `{transformation: {request: {set: [{name: X-Route, value: "'route'"}]}, response: {set: [{name: X-Route-Saw, value: "response.headers['x-edge-code']"}]}}}`,
        },
        {
          name: 'maint',
          traffic: `{directResponse: {conditional: [{condition: "request.headers['x-tenant'] == 'acme'", response: {status: 503, bodyExpression: "'maintenance for ' + request.headers['x-tenant']", headers: [{name: Retry-After, value: "'120'"}, {name: X-Path, value: request.path}]}}, {condition: "request.path.startsWith('/maint/old')", response: {status: 410, body: gone}}]}}`,
        },
        {
          name: 'fallback',
          traffic: `{directResponse: {conditional: [{condition: "request.method == 'DELETE'", response: {status: 405, body: 'no'}}, {response: {status: 200, bodyExpression: "'hello ' + request.headers['x-user']"}}]}}`,
        },
      ],
      `${keys}---\n${shaped(upstream.port)}`,
    );
    runtime = new ProxyRuntime({ log, security: createRouteSecurity() });
    await runtime.apply(translatedIr(manifests));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
  });

  it('sets, adds and removes request headers and the path from CEL over the request, and edits the answer', async () => {
    const res = await rawRequest(`${base}/headers/a?q=1`, { headers: { 'x-user': 'ann', 'x-drop': 'secret' } });
    expect(res.status).toBe(200);
    const got = last();
    expect(got.url).toBe('/rewritten/headers/a');
    expect(got.headers['x-tenant']).toBe(`ann@127.0.0.1:${base.split(':').at(-1)}`);
    expect(got.headers['x-via']).toBe('gw-GET');
    expect(got.headers['x-drop']).toBeUndefined();
    expect(res.headers['x-status']).toBe('200 upstream');
    expect(res.headers['x-secret']).toBeUndefined();
  });

  it('replaces the request body and the answer with JSON built from their fields', async () => {
    const res = await rawRequest(`${base}/body`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-user': 'bob' },
      body: JSON.stringify({ model: 'm-1', prompt: 'hi', extra: { deep: true } }),
    });
    expect(res.status).toBe(200);
    const got = last();
    expect(JSON.parse(got.body)).toEqual({ model: 'm-1', tenant: 'bob' });
    expect(got.headers['content-length']).toBe(String(Buffer.byteLength(got.body)));
    expect(JSON.parse(res.body)).toEqual({ answer: 42, path: '/body' });
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.body)));
  });

  it('fails the request with 500 naming the field when an expression fails, and sends nothing half-edited', async () => {
    const before = seen.length;
    const res = await rawRequest(`${base}/fails`);
    expect(res.status).toBe(500);
    const body = JSON.parse(res.body) as { error: string; error_description: string };
    expect(body.error).toBe('transformation_failed');
    expect(body.error_description).toContain('traffic.transformation.request.set[1] (x-needs)');
    expect(seen.length).toBe(before);
  });

  it('runs after the rate limit: a refused request is answered 429 and never evaluated', async () => {
    expect((await rawRequest(`${base}/limited`)).status).toBe(500);
    const refused = await rawRequest(`${base}/limited`);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'rate_limited' });
  });

  it('runs after authentication: it reads the API key metadata, and can drop the credential before the backend', async () => {
    expect((await rawRequest(`${base}/keyed`)).status).toBe(401);
    const res = await rawRequest(`${base}/keyed`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(res.status).toBe(200);
    expect(last().headers['x-tenant']).toBe('blue');
    expect(last().headers.authorization).toBeUndefined();
  });

  it('runs once before retries: every try sends the same edited body', async () => {
    const res = await rawRequest(`${base}/retried`, {
      method: 'POST',
      headers: { 'x-id': 'retry-1', 'content-type': 'text/plain' },
      body: 'payload',
    });
    expect(res.status).toBe(200);
    const tries = seen.filter((s) => s.headers['x-id'] === 'retry-1');
    expect(tries.map((t) => t.body)).toEqual(['edited payload', 'edited payload']);
  });

  it("applies the route's request step, then the backend's; the backend's response step, then the route's", async () => {
    const res = await rawRequest(`${base}/edge`);
    expect(res.status).toBe(200);
    expect(last().headers['x-route']).toBe('route');
    expect(last().headers['x-edge']).toBe('edge saw route');
    expect(res.headers['x-edge-code']).toBe('200');
    expect(res.headers['x-route-saw']).toBe('200');
  });

  it('answers the first conditional direct response whose condition holds, with CEL body and headers', async () => {
    const before = seen.length;
    const acme = await rawRequest(`${base}/maint/new`, { headers: { 'x-tenant': 'acme' } });
    expect(acme.status).toBe(503);
    expect(acme.body).toBe('maintenance for acme');
    expect(acme.headers['retry-after']).toBe('120');
    expect(acme.headers['x-path']).toBe('/maint/new');
    // Both entries hold for acme on /maint/old: the first wins.
    expect((await rawRequest(`${base}/maint/old`, { headers: { 'x-tenant': 'acme' } })).status).toBe(503);
    const old = await rawRequest(`${base}/maint/old`, { headers: { 'x-tenant': 'other' } });
    expect({ status: old.status, body: old.body }).toEqual({ status: 410, body: 'gone' });
    expect(seen.length).toBe(before);
  });

  it('forwards the request when no conditional entry holds, and answers the fallback entry when one has no condition', async () => {
    const before = seen.length;
    expect((await rawRequest(`${base}/maint/new`, { headers: { 'x-tenant': 'other' } })).status).toBe(200);
    expect(seen.length).toBe(before + 1);
    const res = await rawRequest(`${base}/fallback`, { headers: { 'x-user': 'cy' } });
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: 'hello cy' });
    expect((await rawRequest(`${base}/fallback`, { method: 'DELETE' })).status).toBe(405);
    expect(seen.length).toBe(before + 1);
  });
});
