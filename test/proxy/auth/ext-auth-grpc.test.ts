// GwPolicy traffic.extAuth over gRPC (Envoy's ext_authz protocol), end to end: manifests translated by the
// real translator, served by a real runtime, each request checked by a real Open Policy Agent (its Rego engine
// behind go-control-plane's Authorization service, `make opa`) running testdata/ext-authz.rego, in front of a
// real echo upstream. A wrong field number in proto/envoy fails these tests: the Go server decodes the wire.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../../src/proxy/runtime.js';
import { rawRequest, waitUntil, type RawResponse, type Upstream } from '../http-forward-harness.js';
import { frontendPolicy, trafficManifests } from '../traffic-manifests.js';
import { translatedIr } from '../translated-ir.js';
import { freePort } from '../ports.js';
import { issueLeaf, testCa } from '../../support/test-certs.js';
import { bearer, OpaServer } from './opa-server.js';
import { lineSink, startEchoUpstream } from './ext-auth-server.js';

const buyer = bearer({ sub: 'alice', role: 'buyer' });
const viewer = bearer({ sub: 'bob', role: 'viewer' });

describe('external authorization over gRPC (traffic.extAuth.grpc) against Open Policy Agent', () => {
  let opa: OpaServer;
  let cachedOpa: OpaServer;
  let tlsOpa: OpaServer;
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let base: string;
  let hits = 0;
  const logged: string[] = [];
  const send = (path: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
    rawRequest(`${base}${path}`, o);
  const seen = (res: RawResponse): { url: string; headers: Record<string, string>; body: string } =>
    JSON.parse(res.body) as { url: string; headers: Record<string, string>; body: string };

  beforeAll(async () => {
    const ca = await testCa();
    [opa, cachedOpa, tlsOpa] = await Promise.all([
      OpaServer.start(),
      OpaServer.start(),
      OpaServer.start(undefined, issueLeaf(ca, ['127.0.0.1'], 'server')),
    ]);
    const dead = await freePort();
    upstream = await startEchoUpstream(() => hits++);
    const svc = `grpc://127.0.0.1:${opa.port}`;
    const routes = trafficManifests(upstream.port, [
      { name: 'shop', traffic: `{extAuth: {url: "${svc}", grpc: {contextExtensions: {tenant: acme}}}}` },
      { name: 'public', traffic: `{extAuth: {url: "${svc}", grpc: {}}}` },
      { name: 'orders', traffic: `{extAuth: {url: "${svc}", grpc: {}, forwardBody: {maxSize: "64"}}}` },
      {
        name: 'meta',
        traffic: `{extAuth: {url: "${svc}", grpc: {requestMetadata: {gw.request: '{"method": request.method}'}}}}`,
      },
      { name: 'down', traffic: `{extAuth: {url: "grpc://127.0.0.1:${dead}", grpc: {}}}` },
      { name: 'downopen', traffic: `{extAuth: {url: "grpc://127.0.0.1:${dead}", grpc: {}, failureMode: FailOpen}}` },
      {
        name: 'cached',
        traffic: `{extAuth: {url: "grpc://127.0.0.1:${cachedOpa.port}", grpc: {}, cache: {key: ['request.headers["authorization"]'], ttl: 60s}}}`,
      },
      { name: 'tls', traffic: '{extAuth: {backendRef: {group: gw.dev, kind: GwBackend, name: opa-tls}, grpc: {}}}' },
      { name: 'tlsplain', traffic: `{extAuth: {url: "grpc://127.0.0.1:${tlsOpa.port}", grpc: {}}}` },
      {
        name: 'rules',
        traffic: `{extAuth: {url: "${svc}", grpc: {}}, authorization: {policy: {matchExpressions: ['extauthz.user == "alice"']}}}`,
      },
    ]);
    // The access log names the user OPA's dynamic_metadata gave (CEL extauthz).
    const accessLog = frontendPolicy(
      `{accessLog: {attributes: {add: [{name: authz_user, expression: 'extauthz.user'}]}}}`,
    );
    const tlsBackend = `${accessLog}---
apiVersion: v1
kind: ConfigMap
metadata: {name: opa-ca, namespace: default}
data:
  ca.crt: ${JSON.stringify(ca.caCert)}
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: opa-tls, namespace: default}
spec:
  static: {host: 127.0.0.1, port: ${tlsOpa.port}}
  policies: {tls: {caCertificateRefs: [{group: "", kind: ConfigMap, name: opa-ca}]}}
`;
    const sink = lineSink(logged);
    runtime = new ProxyRuntime({
      log: pino({ level: 'debug' }, sink),
      security: createRouteSecurity(),
      extAuthTimeoutMs: 3000,
    });
    await runtime.apply(translatedIr(`${routes}---\n${tlsBackend}`));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
    await Promise.all([opa?.stop(), cachedOpa?.stop(), tlsOpa?.stop()]);
  });

  it('allows by path and JWT claim, sets and removes upstream headers and adds response headers as Rego says', async () => {
    const res = await send('/shop/items?q=1', {
      headers: { authorization: buyer, 'x-opa-user': 'forged', 'x-remove-me': 'secret' },
    });
    expect(res.status).toBe(200);
    const up = seen(res);
    expect(up.url).toBe('/shop/items?q=1');
    expect(up.headers['x-opa-user']).toBe('alice');
    // contextExtensions reach the policy, which copies the tenant into a header.
    expect(up.headers['x-opa-tenant']).toBe('acme');
    expect(up.headers['x-remove-me']).toBeUndefined();
    expect(res.headers['x-opa-decision']).toBe('allowed');
  });

  it("sends the policy's denial status, headers and body to the client and never reaches the backend", async () => {
    const before = hits;
    const denied = await send('/shop/items', { headers: { authorization: viewer } });
    expect(denied.status).toBe(403);
    expect(denied.headers['content-type']).toBe('application/json');
    expect(JSON.parse(denied.body)).toEqual({ denied: 'bob' });
    const anonymous = await send('/shop/items');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="opa"');
    expect(JSON.parse(anonymous.body)).toEqual({ why: 'who are you?' });
    expect(hits).toBe(before);
  });

  it('allows a path the policy opens to anyone', async () => {
    const res = await send('/public/x');
    expect(res.status).toBe(200);
    expect(seen(res).headers['x-opa-user']).toBe('anonymous');
  });

  it('forwards the body to the policy (forwardBody) and still delivers it upstream; a larger one gets 413', async () => {
    const ok = await send('/orders', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"quantity":2}',
    });
    expect(ok.status).toBe(200);
    expect(seen(ok).body).toBe('{"quantity":2}');
    const tooMany = await send('/orders', { method: 'POST', body: '{"quantity":5}' });
    expect(tooMany.status).toBe(401);
    const large = await send('/orders', { method: 'POST', body: JSON.stringify({ quantity: 1, pad: 'x'.repeat(80) }) });
    expect(large.status).toBe(413);
  });

  it('sends requestMetadata, evaluated as CEL, in the metadata context the policy reads', async () => {
    const res = await send('/meta/x', { method: 'PUT', body: '' });
    expect(res.status).toBe(200);
    expect(seen(res).headers['x-opa-seen']).toBe('PUT');
  });

  it('denies when OPA cannot be reached (FailClosed) and continues when failureMode is FailOpen', async () => {
    const closed = await send('/down/x', { headers: { authorization: buyer } });
    expect(closed.status).toBe(403);
    expect(JSON.parse(closed.body).error).toBe('forbidden');
    const open = await send('/downopen/x');
    expect(open.status).toBe(200);
    expect(logged.join('')).toContain('failureMode FailOpen');
  });

  it('serves a cached decision once OPA is gone, and only for the same key', async () => {
    const first = await send('/cached/y', { headers: { authorization: viewer } });
    expect(first.status).toBe(401);
    await cachedOpa.stop();
    const again = await send('/cached/z', { headers: { authorization: viewer } });
    expect(again.status).toBe(401);
    expect(JSON.parse(again.body)).toEqual({ why: 'who are you?' });
    // Another key must ask, and the stopped server makes that a failed call: 403 forbidden (FailClosed).
    const other = await send('/cached/z', { headers: { authorization: bearer({ sub: 'carol' }) } });
    expect(other.status).toBe(403);
    expect(JSON.parse(other.body).error).toBe('forbidden');
  });

  it("dials OPA over TLS with the CA of its GwBackend's backend.tls; plaintext to it fails closed", async () => {
    const res = await send('/tls/x');
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toEqual({ why: 'who are you?' });
    const plain = await send('/tlsplain/x');
    expect(plain.status).toBe(403);
    expect(JSON.parse(plain.body).error).toBe('forbidden');
  });

  it("gives the policy's dynamic_metadata to later CEL authorization rules and the access log as extauthz", async () => {
    expect((await send('/rules/x', { headers: { authorization: buyer } })).status).toBe(200);
    await waitUntil('the access line of /rules', () => logged.some((l) => l.includes('"authz_user":"alice"')));
    const bob = await send('/rules/x', { headers: { authorization: viewer } });
    expect(bob.status).toBe(403);
    expect(JSON.parse(bob.body).error_description).toContain('rules/0 does not allow this request');
  });
});
