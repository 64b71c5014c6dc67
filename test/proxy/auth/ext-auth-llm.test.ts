// traffic.extAuth on an LLM route, through the real translator and runtime: the authorization service
// (ext-auth-server.ts, real) decides before the prompt reaches the provider, here a loopback fake of the
// OpenAI API (test/proxy/llm/fake-vendors.ts: the vendor cannot run here). With forwardBody the service
// reads the chat request and the provider still gets it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY, aiBackend, aiRoute, chat, secret, useFakeAndProxy } from '../llm/llm-harness.js';
import { startExtAuthServer, type ExtAuthServer } from './ext-auth-server.js';

const KEY = 'sk-test-SECRET-extauth-0123456789';

describe('external authorization on an LLM route', () => {
  let authz: ExtAuthServer | undefined;
  beforeAll(async () => {
    authz = await startExtAuthServer();
  });
  afterAll(async () => {
    await authz?.close();
  });

  const manifests = (port: number): string => `${GATEWAY}${secret('openai-key', { Authorization: KEY })}
${aiBackend('openai', `openai: {}, host: 127.0.0.1, port: ${port}`)}---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: openai-key, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: openai}]
  backend:
    auth: {secretRef: {name: openai-key}}
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: chat-authz, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: chat}]
  traffic:
    extAuth: {url: "http://127.0.0.1:${authz?.port ?? 0}/llm", forwardBody: {maxSize: 16Ki}, http: {allowedRequestHeaders: [X-User]}}
${aiRoute('chat', '/chat', 'openai')}`;
  const t = useFakeAndProxy('openai', manifests);

  it('sends an allowed chat request to the provider after the service read it', async () => {
    const before = authz?.checks.length ?? 0;
    const res = await chat(
      `${t.proxy.base}/chat/v1/chat/completions`,
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi there' }] },
      { 'x-user': 'alice' },
    );
    expect(res.status).toBe(200);
    expect(t.fake.received).toHaveLength(1);
    expect(JSON.stringify(t.fake.received[0]?.body.messages)).toContain('Hi there');
    const check = authz?.checks[before];
    expect(check).toMatchObject({ method: 'POST', url: '/llm/chat/v1/chat/completions' });
    expect(check?.body).toContain('Hi there');
  });

  it("answers a denied client with the service's 403 and never calls the provider", async () => {
    const res = await chat(
      `${t.proxy.base}/chat/v1/chat/completions`,
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] },
      { 'x-user': 'bob' },
    );
    expect(res.status).toBe(403);
    expect(res.json()).toEqual({ denied: 'bob' });
    expect(t.fake.received).toHaveLength(0);
  });
});
