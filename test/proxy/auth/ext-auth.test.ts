// GwPolicy traffic.extAuth over HTTP, end to end: manifests translated by the real translator, served by a
// real runtime, checked by a real authorization service (ext-auth-server.ts) in front of a real echo upstream.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../../src/proxy/runtime.js';
import { rawRequest, type RawResponse, type Upstream } from '../http-forward-harness.js';
import { trafficManifests } from '../traffic-manifests.js';
import { translatedIr } from '../translated-ir.js';
import { freePort } from '../ports.js';
import { lineSink, startEchoUpstream, startExtAuthServer, type ExtAuthServer } from './ext-auth-server.js';

const secretToken = 'Bearer good-token';

describe('external authorization (traffic.extAuth over HTTP)', () => {
  let authz: ExtAuthServer;
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let base: string;
  let hits = 0;
  /** The runtime's clock, for cache expiry. */
  let now = 1_000_000;
  const logged: string[] = [];
  const send = (
    path: string,
    o: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ): Promise<RawResponse> => rawRequest(`${base}${path}`, o);
  const seen = (res: RawResponse): { url: string; headers: Record<string, string>; body: string } =>
    JSON.parse(res.body) as { url: string; headers: Record<string, string>; body: string };
  const lastCheck = () => authz.checks[authz.checks.length - 1];

  beforeAll(async () => {
    authz = await startExtAuthServer();
    // A port nothing listens on: a stopped authorization service.
    const dead = await freePort();
    upstream = await startEchoUpstream(() => hits++);
    const svc = `http://127.0.0.1:${authz.port}`;
    const routes = trafficManifests(upstream.port, [
      {
        name: 'allow',
        traffic: `{extAuth: {url: "${svc}/check", http: {allowedRequestHeaders: [X-User, Authorization, X-Forwarded-Uri], allowedResponseHeaders: [X-Auth-User]}}}`,
      },
      { name: 'plain', traffic: `{extAuth: {url: "${svc}"}}` },
      {
        name: 'cel',
        traffic: `{extAuth: {url: "${svc}", http: {allowedRequestHeaders: [X-Other], addRequestHeaders: {x-user: 'request.headers["x-name"]'}, path: '"/decide" + request.path'}}}`,
      },
      { name: 'down', traffic: `{extAuth: {url: "http://127.0.0.1:${dead}"}}` },
      { name: 'downopen', traffic: `{extAuth: {url: "http://127.0.0.1:${dead}", failureMode: FailOpen}}` },
      { name: 'slow', traffic: `{extAuth: {url: "${svc}", http: {allowedRequestHeaders: [X-User]}}}` },
      {
        name: 'slowopen',
        traffic: `{extAuth: {url: "${svc}/slow", failureMode: FailOpen, http: {allowedRequestHeaders: [X-User]}}}`,
      },
      {
        name: 'body',
        traffic: `{extAuth: {url: "${svc}", forwardBody: {maxSize: "32"}, http: {allowedRequestHeaders: [X-User]}}}`,
      },
      { name: 'login', traffic: `{extAuth: {url: "${svc}"}}` },
      { name: 'grpc', traffic: `{extAuth: {url: "${svc}", grpc: {}}}` },
      {
        name: 'redir',
        traffic: `{extAuth: {url: "${svc}", http: {redirect: '"https://login.example/start?to=" + request.path'}}}`,
      },
      {
        name: 'celbody',
        traffic: `{extAuth: {url: "${svc}", http: {allowedRequestHeaders: [X-User], body: '"user=" + request.headers["x-user"]'}}}`,
      },
      {
        name: 'respmeta',
        traffic: `{extAuth: {url: "${svc}", http: {allowedRequestHeaders: [X-User, Authorization], responseMetadata: {user: 'response.headers["x-auth-user"]', code: 'response.code'}}}, authorization: {policy: {matchExpressions: ['extauthz.user == "token-holder"', 'extauthz.code == 200']}}}`,
      },
      {
        name: 'cond',
        traffic: `{extAuth: {conditional: [
        {condition: 'request.path.startsWith("/cond/admin")', policy: {url: "${svc}/admin", http: {allowedRequestHeaders: [X-User]}}},
        {condition: 'request.path.startsWith("/cond/open")', policy: {url: "http://127.0.0.1:${dead}", failureMode: FailOpen}},
        {policy: {url: "${svc}/fallback"}}]}}`,
      },
      {
        name: 'cached',
        traffic: `{extAuth: {url: "${svc}", http: {allowedRequestHeaders: [X-User], allowedResponseHeaders: [X-Auth-User]}, cache: {key: ['request.headers["x-user"]'], ttl: 60s, maxEntries: 2}}}`,
      },
      { name: 'badcel', traffic: `{extAuth: {url: "${svc}", http: {addRequestHeaders: {x-user: 'secret.value'}}}}` },
      {
        name: 'onbackend',
        traffic: `{extAuth: {url: "${svc}/route", http: {allowedRequestHeaders: [X-User]}}}`,
        backend: 'guarded',
      },
      { name: 'ownbackend', traffic: '{timeouts: {request: 5s}}', backend: 'ownguard' },
      {
        name: 'condnone',
        traffic: `{extAuth: {conditional: [{condition: 'request.headers["x-check"] == "yes"', policy: {url: "${svc}", http: {allowedRequestHeaders: [X-User]}}}]}}`,
      },
    ]);
    const backendLevel = `apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: guarded, namespace: default}
spec:
  static: {host: 127.0.0.1, port: ${upstream.port}}
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: guarded, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: guarded}]
  backend: {extAuth: {url: "${svc}/backend", http: {allowedRequestHeaders: [X-User], allowedResponseHeaders: [X-Auth-User]}}}
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ownguard, namespace: default}
spec:
  static: {host: 127.0.0.1, port: ${upstream.port}}
  policies: {extAuth: {url: "${svc}/own", http: {allowedRequestHeaders: [X-User]}}}
`;
    const manifests = `${routes}---\n${backendLevel}`;
    const sink = lineSink(logged);
    runtime = new ProxyRuntime({
      log: pino({ level: 'debug' }, sink),
      security: createRouteSecurity(),
      // Long enough for a loaded machine to answer every check in time; the slow case waits far longer.
      extAuthTimeoutMs: 3000,
      clock: () => now,
    });
    await runtime.apply(translatedIr(manifests));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
    await authz?.close();
  });

  it('forwards an allowed request with the allowed response headers of the service, and only those', async () => {
    const res = await send('/allow/items?q=1', { headers: { 'x-user': 'alice', 'x-auth-user': 'forged' } });
    expect(res.status).toBe(200);
    expect(seen(res).headers['x-auth-user']).toBe('alice');
    expect(seen(res).headers['x-auth-internal']).toBeUndefined();
    expect(lastCheck()).toMatchObject({ method: 'GET', url: '/check/allow/items?q=1' });
    expect(lastCheck()?.headers['x-forwarded-uri']).toBe('/allow/items?q=1');
  });

  it("sends the service's denial back to the client as is and never reaches the backend", async () => {
    const before = hits;
    const denied = await send('/allow/items', { headers: { 'x-user': 'bob' } });
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.body)).toEqual({ denied: 'bob' });
    const anonymous = await send('/allow/items');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="authz"');
    expect(anonymous.body).toBe('who are you?');
    const redirect = await send('/login/x');
    expect(redirect.status).toBe(302);
    expect(redirect.headers.location).toBe('https://login.example/start');
    expect(hits).toBe(before);
  });

  it('sends only the Authorization header by default', async () => {
    const res = await send('/plain/x', {
      headers: { authorization: secretToken, 'x-user': 'bob', cookie: 'session=1' },
    });
    expect(res.status).toBe(200);
    expect(lastCheck()?.headers.authorization).toBe(secretToken);
    expect(lastCheck()?.headers['x-user']).toBeUndefined();
    expect(lastCheck()?.headers.cookie).toBeUndefined();
    // x-user alone is not forwarded, so the service sees nobody.
    expect((await send('/plain/x', { headers: { 'x-user': 'alice' } })).status).toBe(401);
  });

  it('adds CEL header values and asks on the CEL path', async () => {
    const res = await send('/cel/a', { headers: { 'x-name': 'alice', 'x-other': 'o', authorization: 'Bearer bad' } });
    expect(res.status).toBe(200);
    expect(lastCheck()).toMatchObject({ url: '/decide/cel/a' });
    expect(lastCheck()?.headers).toMatchObject({ 'x-user': 'alice', 'x-other': 'o' });
    expect(lastCheck()?.headers.authorization).toBeUndefined();
    expect((await send('/cel/a', { headers: { 'x-name': 'bob' } })).status).toBe(403);
  });

  it('denies with 403 when the service is down (FailClosed) and continues when it is FailOpen', async () => {
    const closed = await send('/down/x', { headers: { authorization: secretToken } });
    expect(closed.status).toBe(403);
    expect(JSON.parse(closed.body).error).toBe('forbidden');
    const open = await send('/downopen/x', { headers: { authorization: secretToken } });
    expect(open.status).toBe(200);
    expect(seen(open).url).toBe('/downopen/x');
  });

  it('treats a 5xx answer as a failed call: FailClosed denies with 403', async () => {
    const res = await send('/allow/x', { headers: { 'x-user': 'boom' } });
    expect(res.status).toBe(403);
    expect(res.body).not.toContain('authorization backend broke');
  });

  it('treats a service slower than the timeout as failed: FailClosed denies, FailOpen continues', async () => {
    // The answer would come long after the bound below: only the 3 s timeout can end the call before it.
    authz.slowMs = 60_000;
    try {
      const t0 = Date.now();
      const closed = await send('/slow/x', { headers: { 'x-user': 'alice' } });
      expect(closed.status).toBe(403);
      expect(Date.now() - t0).toBeLessThan(20_000);
      const open = await send('/slowopen/x', { headers: { 'x-user': 'bob' } });
      expect(open.status).toBe(200);
    } finally {
      authz.slowMs = 0;
    }
  });

  it('sends the body along with forwardBody and still delivers it upstream; a larger one gets 413', async () => {
    const ok = await send('/body/x', {
      method: 'POST',
      headers: { 'x-user': 'alice', 'content-type': 'text/plain' },
      body: 'hello body',
    });
    expect(ok.status).toBe(200);
    expect(lastCheck()).toMatchObject({ method: 'POST', body: 'hello body' });
    expect(seen(ok).body).toBe('hello body');
    const before = authz.checks.length;
    const big = await send('/body/x', { method: 'POST', headers: { 'x-user': 'alice' }, body: 'x'.repeat(64) });
    expect(big.status).toBe(413);
    expect(authz.checks.length).toBe(before);
  });

  it('asks over gRPC when grpc is set: an HTTP-only service cannot answer that, so FailClosed denies', async () => {
    const res = await send('/grpc/x', { headers: { authorization: secretToken } });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'forbidden' });
  });

  it('turns a 401 denial into a 302 to the http.redirect URL; other answers pass unchanged', async () => {
    const res = await send('/redir/x');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('https://login.example/start?to=/redir/x');
    expect((await send('/redir/x', { headers: { authorization: secretToken } })).status).toBe(200);
    expect((await send('/redir/x', { headers: { authorization: 'Bearer other' } })).status).toBe(302);
  });

  it('sends the http.body CEL value as the check body', async () => {
    const res = await send('/celbody/x', { headers: { 'x-user': 'alice' } });
    expect(res.status).toBe(200);
    expect(lastCheck()?.body).toBe('user=alice');
    expect(lastCheck()?.headers['content-length']).toBe('10');
  });

  it('gives http.responseMetadata (over the allowing answer) to later CEL authorization rules as extauthz', async () => {
    expect((await send('/respmeta/x', { headers: { authorization: secretToken } })).status).toBe(200);
    // The service allows alice too, but names her in x-auth-user: the rule on extauthz.user denies.
    const alice = await send('/respmeta/x', { headers: { 'x-user': 'alice' } });
    expect(alice.status).toBe(403);
    expect(JSON.parse(alice.body).error_description).toContain('does not allow this request');
  });

  it('asks the service of the first conditional branch that holds, else the fallback', async () => {
    const admin = await send('/cond/admin/x', { headers: { 'x-user': 'alice' } });
    expect(admin.status).toBe(200);
    expect(lastCheck()?.url).toBe('/admin/cond/admin/x');
    expect((await send('/cond/admin/x', { headers: { 'x-user': 'bob' } })).status).toBe(403);
    expect((await send('/cond/open/x')).status).toBe(200);
    const fallback = await send('/cond/other', { headers: { 'x-user': 'alice' } });
    expect(fallback.status).toBe(401);
    expect(lastCheck()?.url).toBe('/fallback/cond/other');
  });

  it('checks nothing when no conditional branch holds and there is no fallback', async () => {
    const before = authz.checks.length;
    expect((await send('/condnone/x')).status).toBe(200);
    expect(authz.checks.length).toBe(before);
    expect((await send('/condnone/x', { headers: { 'x-check': 'yes', 'x-user': 'bob' } })).status).toBe(403);
    expect(authz.checks.length).toBe(before + 1);
  });

  it('does not let the client choose the X-Forwarded-Uri the service sees, even when allowed', async () => {
    await send('/allow/real', { headers: { 'x-user': 'alice', 'x-forwarded-uri': '/public' } });
    expect(lastCheck()?.headers['x-forwarded-uri']).toBe('/allow/real');
  });

  it('refuses a route whose extAuth CEL does not compile with 503, naming why', async () => {
    const res = await send('/badcel/x', { headers: { 'x-user': 'alice' } });
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body).error_description).toContain('http.addRequestHeaders.x-user');
    expect(logged.some((l) => l.includes('badcel') && l.includes('does not enforce'))).toBe(true);
  });

  it('asks backend.extAuth after routing, after traffic.extAuth; both must allow', async () => {
    const res = await send('/onbackend/x', { headers: { 'x-user': 'alice' } });
    expect(res.status).toBe(200);
    expect(seen(res).headers['x-auth-user']).toBe('alice');
    expect(authz.checks.slice(-2).map((c) => c.url)).toEqual(['/route/onbackend/x', '/backend/onbackend/x']);
    const before = hits;
    expect((await send('/onbackend/x', { headers: { 'x-user': 'bob' } })).status).toBe(403);
    expect(hits).toBe(before);
  });

  it("enforces a GwBackend's own policies.extAuth on the routes to it", async () => {
    expect((await send('/ownbackend/x', { headers: { 'x-user': 'alice' } })).status).toBe(200);
    expect(authz.checks[authz.checks.length - 1]?.url).toBe('/own/ownbackend/x');
    const before = hits;
    expect((await send('/ownbackend/x', { headers: { 'x-user': 'bob' } })).status).toBe(403);
    expect(hits).toBe(before);
  });

  it('caches allow and deny decisions per key for the ttl, within maxEntries', async () => {
    const checks = (): number => authz.checks.length;
    const start = checks();
    for (let i = 0; i < 2; i++) {
      const ok = await send('/cached/x', { headers: { 'x-user': 'alice' } });
      expect(ok.status).toBe(200);
      expect(seen(ok).headers['x-auth-user']).toBe('alice');
      const denied = await send('/cached/x', { headers: { 'x-user': 'bob' } });
      expect(denied.status).toBe(403);
      expect(JSON.parse(denied.body)).toEqual({ denied: 'bob' });
    }
    expect(checks()).toBe(start + 2);
    now += 61_000;
    await send('/cached/x', { headers: { 'x-user': 'alice' } });
    expect(checks()).toBe(start + 3);
    // maxEntries 2: carol and bob push alice out.
    await send('/cached/x', { headers: { 'x-user': 'bob' } });
    await send('/cached/x', { headers: { 'x-user': 'carol' } });
    await send('/cached/x', { headers: { 'x-user': 'alice' } });
    expect(checks()).toBe(start + 6);
  });

  it('does not cache a request whose key cannot be computed, nor a failed call', async () => {
    const start = authz.checks.length;
    expect((await send('/cached/x')).status).toBe(401);
    expect((await send('/cached/x')).status).toBe(401);
    expect(authz.checks.length).toBe(start + 2);
    expect((await send('/cached/x', { headers: { 'x-user': 'boom' } })).status).toBe(403);
    expect((await send('/cached/x', { headers: { 'x-user': 'boom' } })).status).toBe(403);
    expect(authz.checks.length).toBe(start + 4);
  });

  it('never writes the Authorization value into logs', () => {
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.join('')).not.toContain('good-token');
  });
});
