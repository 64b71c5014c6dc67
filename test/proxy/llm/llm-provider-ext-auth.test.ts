// backend.extAuth per AI provider: a provider's own `policies.extAuth` is asked before each try of that provider
// only, through a real listener, against the loopback ext_authz stand-in (ext-auth-server.ts) and fake vendors.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeVendor, type FakeVendor } from './fake-vendors.js';
import { GATEWAY, aiRoute, chat, startLlmProxy, type LlmProxy } from './llm-harness.js';
import { startExtAuthServer, type ExtAuthServer } from '../auth/ext-auth-server.js';

const body = { model: 'm', messages: [{ role: 'user', content: 'Hi' }] };

describe('backend.extAuth per AI provider', () => {
  let a: FakeVendor, b: FakeVendor;
  let authz: ExtAuthServer;
  let proxy: LlmProxy;
  const checks = (): string[] => authz.checks.map((c) => c.url);

  beforeAll(async () => {
    [a, b] = await Promise.all([startFakeVendor('openai'), startFakeVendor('openai')]);
    authz = await startExtAuthServer();
    const svc = `http://127.0.0.1:${authz.port}`;
    // A GwPolicy aimed at one provider with sectionName (provider `policies` have no extAuth field).
    const guarded = (backend: string, provider: string): string => `---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: ${backend}-${provider}, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: ${backend}, sectionName: ${provider}}]
  backend: {extAuth: {url: "${svc}/provider-${provider}", http: {allowedRequestHeaders: [X-User], allowedResponseHeaders: [X-Auth-User]}}}
`;
    // Priority groups make the order of tries fixed (a, then b); a GwPolicy guards one of them.
    const backend = (name: string, guardedProvider: string): string => `---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  ai:
    groups:
    - providers:
      - {name: a, openai: {}, host: 127.0.0.1, port: ${a.port}}
    - providers:
      - {name: b, openai: {}, host: 127.0.0.1, port: ${b.port}}
${guarded(name, guardedProvider)}`;
    proxy = await startLlmProxy(`${GATEWAY}
${backend('guardedfirst', 'a')}${backend('plainfirst', 'b')}${aiRoute('guardedfirst', '/gf', 'guardedfirst')}${aiRoute('plainfirst', '/pf', 'plainfirst')}---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: both, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /both}}]
    backendRefs: [{group: gw.dev, kind: GwBackend, name: guardedfirst}, {group: gw.dev, kind: GwBackend, name: plainfirst}]
`);
  });
  afterAll(async () => {
    await proxy?.close();
    await Promise.all([a, b].map((f) => f?.close()));
    await authz?.close();
  });
  beforeEach(() => {
    for (const f of [a, b]) {
      f.received.length = 0;
      f.mode = { kind: 'ok' };
    }
    authz.checks.length = 0;
    proxy.advance(120_000);
  });

  it("asks the provider's own service before its try and sends the allowed headers to that provider", async () => {
    const res = await chat(`${proxy.base}/gf/chat/completions`, body, { 'x-user': 'alice' });
    expect(res.status).toBe(200);
    expect(checks()).toEqual(['/provider-a/gf/chat/completions']);
    expect(a.received).toHaveLength(1);
    expect(a.received[0]?.headers['x-auth-user']).toBe('alice');
    expect(b.received).toHaveLength(0);
  });

  it("answers that provider's denial and tries no provider", async () => {
    const res = await chat(`${proxy.base}/gf/chat/completions`, body, { 'x-user': 'bob' });
    expect(res.status).toBe(403);
    expect(res.json()).toEqual({ denied: 'bob' });
    expect(a.received).toHaveLength(0);
    expect(b.received).toHaveLength(0);
  });

  it("fails over to a provider without extAuth unasked, without the first service's headers", async () => {
    a.mode = { kind: 'status', status: 502 };
    const res = await chat(`${proxy.base}/gf/chat/completions`, body, { 'x-user': 'alice' });
    expect(res.status).toBe(200);
    expect(checks()).toEqual(['/provider-a/gf/chat/completions']);
    expect(a.received).toHaveLength(1);
    expect(b.received).toHaveLength(1);
    expect(b.received[0]?.headers['x-auth-user']).toBeUndefined();
  });

  it("asks nothing for a provider without extAuth, and the next provider's service on failover", async () => {
    expect((await chat(`${proxy.base}/pf/chat/completions`, body, { 'x-user': 'bob' })).status).toBe(200);
    expect(checks()).toEqual([]);
    expect(a.received).toHaveLength(1);
    a.mode = { kind: 'status', status: 502 };
    proxy.advance(120_000);
    const denied = await chat(`${proxy.base}/pf/chat/completions`, body, { 'x-user': 'bob' });
    expect(denied.status).toBe(403);
    expect(checks()).toEqual(['/provider-b/pf/chat/completions']);
    expect(b.received).toHaveLength(0);
    proxy.advance(120_000);
    const allowed = await chat(`${proxy.base}/pf/chat/completions`, body, { 'x-user': 'alice' });
    expect(allowed.status).toBe(200);
    expect(b.received[0]?.headers['x-auth-user']).toBe('alice');
  });

  it("serves a route over two ai backends whose providers differ with the first edge's providers, each asking its own", async () => {
    const res = await chat(`${proxy.base}/both/chat/completions`, body, { 'x-user': 'bob' });
    expect(res.status).toBe(403);
    expect(checks()).toEqual(['/provider-a/both/chat/completions']);
    expect(a.received.length + b.received.length).toBe(0);
    const allowed = await chat(`${proxy.base}/both/chat/completions`, body, { 'x-user': 'alice' });
    expect(allowed.status).toBe(200);
    expect(a.received[0]?.headers['x-auth-user']).toBe('alice');
  });
});
