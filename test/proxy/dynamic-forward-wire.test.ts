// GwBackend dynamicForwardProxy on the wire: translated from manifests, served by a real runtime (with the
// route security factory) to real loopback upstreams chosen by each request's Host, with the route's
// traffic policy, authorization and backend TLS applied as for any forwarded route.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, rawRequest, readAll, startUpstream, type RawResponse, type Upstream } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests } from './traffic-manifests.js';

const pem = (f: string): string => readFileSync(join(import.meta.dirname, 'tls-testdata', f), 'utf8');

/** GwBackend `dfp`, and route `tls` to it with a GwPolicy asking for TLS verified against the test CA. */
const extra = `apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: dfp, namespace: default}
spec:
  dynamicForwardProxy: {allowedDestinations: [127.0.0.0/8]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: test-ca, namespace: default}
data: {ca.crt: ${JSON.stringify(pem('ca.crt'))}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: tls, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - {matches: [{path: {type: PathPrefix, value: /tls}}], backendRefs: [{group: gw.dev, kind: GwBackend, name: dfp}]}
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: tls, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: tls}]
  backend: {tls: {caCertificateRefs: [{name: test-ca}], sni: a.example.test}}
`;

describe('GwBackend dynamicForwardProxy', () => {
  let a: Upstream;
  let b: Upstream;
  let secure: HttpsServer;
  let securePort: number;
  let runtime: ProxyRuntime;
  let proxyPort: number;
  const tries = new Map<string, number>();

  const get = (
    path: string,
    host: string,
    o: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ): Promise<RawResponse> =>
    rawRequest(`http://127.0.0.1:${proxyPort}${path}`, { ...o, headers: { ...o.headers, host } });
  const echo = (res: RawResponse): { who: string; url: string; headers: Record<string, string> } =>
    JSON.parse(res.body) as never;

  beforeAll(async () => {
    const handler =
      (who: string) =>
      (req: IncomingMessage, res: ServerResponse): void => {
        const id = String(req.headers['x-id'] ?? '');
        const n = (tries.get(id) ?? 0) + 1;
        tries.set(id, n);
        const url = req.url ?? '';
        if (url.startsWith('/timed')) {
          setTimeout(() => res.writeHead(200).end('late'), 1500);
          return;
        }
        if (url.startsWith('/flaky') && n < 3) {
          res.writeHead(503).end('busy');
          return;
        }
        if (url.startsWith('/open/bounce')) {
          // Sends the request back into the proxy through an address the proxy cannot recognise as itself: only Via can tell.
          void rawRequest(`http://127.0.0.1:${proxyPort}/open/again`, {
            headers: { host: `127.0.0.1:${b.port}`, via: String(req.headers.via ?? '') },
          }).then((back) => res.writeHead(back.status, { 'content-type': 'application/json' }).end(back.body));
          return;
        }
        void readAll(req).then((body) =>
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ who, url, headers: req.headers, body: body.toString(), try: n })),
        );
      };
    a = await startUpstream(handler('a'));
    b = await startUpstream(handler('b'));
    secure = createHttpsServer({ cert: pem('a.crt'), key: pem('a.key') }, handler('secure'));
    await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
    securePort = (secure.address() as AddressInfo).port;
    runtime = new ProxyRuntime({ log, security: createRouteSecurity() });
    await runtime.apply(
      translatedIr(
        trafficManifests(
          a.port,
          [
            {
              name: 'open',
              backend: 'dfp',
              traffic: '{headerModifiers: {request: {set: [{name: X-Tenant, value: policy}]}}}',
              rule: 'filters: [{type: ResponseHeaderModifier, responseHeaderModifier: {set: [{name: X-Route, value: open}]}}]',
            },
            { name: 'flaky', backend: 'dfp', traffic: '{retry: {attempts: 3, backoff: 10ms, codes: [503]}}' },
            { name: 'timed', backend: 'dfp', traffic: '{timeouts: {request: 100ms}}' },
            { name: 'limited', backend: 'dfp', traffic: '{rateLimit: {local: [{requests: 1, unit: Hours}]}}' },
            {
              name: 'authz',
              backend: 'dfp',
              traffic: `{authorization: {policy: {matchExpressions: ['request.method == "GET"']}}}`,
            },
          ],
          extra,
        ),
      ),
    );
    proxyPort = Object.values(runtime.boundPorts())[0] ?? 0;
  });

  afterAll(async () => {
    await runtime?.close();
    await a?.close();
    await b?.close();
    await new Promise<void>((resolve) => {
      if (!secure) resolve();
      else {
        secure.close(() => resolve());
        secure.closeAllConnections();
      }
    });
  });

  it('forwards each request to the host and port its Host header names', async () => {
    const toA = await get('/open/x?q=1', `127.0.0.1:${a.port}`);
    const toB = await get('/open/y', `127.0.0.1:${b.port}`, { method: 'POST', body: 'hello' });
    expect([toA.status, toB.status]).toEqual([200, 200]);
    expect(echo(toA)).toMatchObject({ who: 'a', url: '/open/x?q=1', headers: { host: `127.0.0.1:${a.port}` } });
    expect(echo(toB)).toMatchObject({ who: 'b', url: '/open/y', body: 'hello' });
  });

  it('applies the policy request headers and the route response filter, and marks the request with Via', async () => {
    const res = await get('/open/h', `127.0.0.1:${a.port}`, { headers: { 'x-tenant': 'client' } });
    expect(res.headers['x-route']).toBe('open');
    const { headers } = echo(res);
    expect(headers['x-tenant']).toBe('policy');
    expect(headers.via).toMatch(/^1\.1 gw-[0-9a-f]{8}$/);
    expect(headers['x-forwarded-host']).toBe(`127.0.0.1:${a.port}`);
  });

  it('retries a 503 from the named host per traffic.retry', async () => {
    const res = await get('/flaky', `127.0.0.1:${b.port}`, { headers: { 'x-id': 'flaky-1' } });
    expect(res.status).toBe(200);
    expect(echo(res)).toMatchObject({ who: 'b', try: 3 });
  });

  it('answers 504 when traffic.timeouts passes before the named host responds', async () => {
    const res = await get('/timed', `127.0.0.1:${a.port}`);
    expect(res.status).toBe(504);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'gateway_timeout' });
  });

  it('applies the local rate limit whatever host is named', async () => {
    expect((await get('/limited', `127.0.0.1:${a.port}`)).status).toBe(200);
    const second = await get('/limited', `127.0.0.1:${b.port}`);
    expect(second.status).toBe(429);
    expect(JSON.parse(second.body)).toMatchObject({ error: 'rate_limited' });
  });

  it('applies CEL authorization before contacting any host', async () => {
    expect((await get('/authz', `127.0.0.1:${a.port}`)).status).toBe(200);
    const denied = await get('/authz', `127.0.0.1:${a.port}`, {
      method: 'POST',
      headers: { 'x-id': 'denied' },
      body: 'x',
    });
    expect(denied.status).toBe(403);
    expect(tries.get('denied')).toBeUndefined();
  });

  it('speaks TLS to the named host when the edge has backend.tls, verifying the certificate', async () => {
    const res = await get('/tls/s', `127.0.0.1:${securePort}`);
    expect(res.status).toBe(200);
    expect(echo(res)).toMatchObject({ who: 'secure', url: '/tls/s' });
  });

  it.each([
    ['a port out of range', '127.0.0.1:70000'],
    ['something that is not a host', 'not a host'],
  ])('answers 400 invalid_host for %s', async (_what, host) => {
    const res = await get('/open/z', host);
    expect(res.status).toBe(400);
    expect(Object.keys(JSON.parse(res.body)).sort()).toEqual(['error', 'error_description']);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'invalid_host' });
  });

  it('answers 400 invalid_host to an HTTP/1.0 request without a Host header', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(proxyPort, '127.0.0.1', () => socket.write('GET /open/none HTTP/1.0\r\n\r\n'));
      let out = '';
      socket.on('data', (c: Buffer) => {
        out += c.toString();
      });
      socket.on('end', () => resolve(out));
      socket.on('error', reject);
    });
    expect(text).toMatch(/^HTTP\/1\.1 400/);
    expect(text).toContain('"error":"invalid_host"');
  });

  it.each([
    ['its own address and port', () => `127.0.0.1:${proxyPort}`],
    ['localhost and its own port', () => `localhost:${proxyPort}`],
  ])('answers 508 loop_detected when the Host names %s', async (_what, host) => {
    const res = await get('/open/loop', host());
    expect(res.status).toBe(508);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'loop_detected' });
  });

  it('answers 508 loop_detected when a request comes back carrying its own Via mark', async () => {
    const res = await get('/open/bounce', `127.0.0.1:${b.port}`);
    expect(res.status).toBe(508);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'loop_detected' });
  });
});
