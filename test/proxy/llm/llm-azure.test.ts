// Azure (resource style: OpenAI and Foundry resources) through the real translator and proxy, against a
// loopback FAKE of the OpenAI API (fake-vendors.ts; Azure's endpoints speak its wire format) and a loopback
// FAKE of the Entra ID token endpoint (fake-token-endpoint.ts), reached through AZURE_AUTHORITY_HOST.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeVendor, type FakeVendor } from './fake-vendors.js';
import { startFakeTokenEndpoint, type FakeTokenEndpoint } from './fake-token-endpoint.js';
import { GATEWAY, aiBackend, aiRoute, chat, modelRoute, secret, startLlmProxy, type LlmProxy } from './llm-harness.js';

const KEY = 'azure-SECRET-api-key-5150';
const CLIENT_SECRET = 'entra-SECRET-client-secret';
const OTHER_SECRET = 'entra-SECRET-other-client';
const ask = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] };

function manifests(port: number): string {
  const at = `host: 127.0.0.1, port: ${port}`;
  return `${GATEWAY}${secret('entra', { clientID: 'client-1', tenantID: 'tenant-1', clientSecret: CLIENT_SECRET })}${secret('entra-other', { clientID: 'client-2', tenantID: 'tenant-2', clientSecret: OTHER_SECRET })}
${aiBackend('az-key', `azure: {resourceName: res1, resourceType: OpenAI}, ${at}`, `{auth: {key: ${KEY}}}`)}
${aiBackend('az-dated', `azure: {resourceName: res1, resourceType: OpenAI, apiVersion: '2024-10-21'}, ${at}`, `{auth: {key: ${KEY}}}`)}
${aiBackend('az-foundry', `azure: {resourceName: res2, resourceType: Foundry, projectName: proj1}, ${at}`, '{auth: {azure: {secretRef: {name: entra}}}}')}
${aiBackend('az-other', `azure: {resourceName: res3, resourceType: OpenAI}, ${at}`, '{auth: {azure: {secretRef: {name: entra-other}}}}')}
${modelRoute('models', '/models')}
---
apiVersion: gw.dev/v1alpha1
kind: GwModel
metadata: {name: gpt-4o-mini, namespace: default}
spec:
  parentRefs: [{kind: HTTPRoute, name: models, sectionName: chat}]
  provider: Azure
  baseURL: http://127.0.0.1:${port}
  azure: {resourceName: res4, resourceType: OpenAI}
  policies: {auth: {azure: {secretRef: {name: entra}}}}
${aiRoute('az-key', '/az-key', 'az-key')}${aiRoute('az-dated', '/az-dated', 'az-dated')}${aiRoute('az-foundry', '/az-foundry', 'az-foundry')}${aiRoute('az-other', '/az-other', 'az-other')}`;
}

describe('LLM routes to Azure resources (OpenAI and Foundry), with keys or Entra ID tokens', () => {
  let fake: FakeVendor, entra: FakeTokenEndpoint, proxy: LlmProxy;
  const saved = process.env.AZURE_AUTHORITY_HOST;

  beforeAll(async () => {
    [fake, entra] = await Promise.all([startFakeVendor('openai'), startFakeTokenEndpoint()]);
    process.env.AZURE_AUTHORITY_HOST = entra.url;
    proxy = await startLlmProxy(manifests(fake.port));
  });
  afterAll(async () => {
    await proxy?.close();
    await Promise.all([fake?.close(), entra?.close()]);
    if (saved === undefined) delete process.env.AZURE_AUTHORITY_HOST;
    else process.env.AZURE_AUTHORITY_HOST = saved;
  });
  beforeEach(() => {
    fake.received.length = 0;
    entra.mode = 'ok';
  });

  it('calls an OpenAI resource at /openai/v1 with the api-key header', async () => {
    const res = await chat(`${proxy.base}/az-key/chat/completions`, ask);
    expect(res.status).toBe(200);
    expect(fake.received[0]?.path).toBe('/openai/v1/chat/completions');
    expect(fake.received[0]?.headers['api-key']).toBe(KEY);
    expect(fake.received[0]?.headers.authorization).toBeUndefined();
  });

  it("addresses the deployment named like the request's model for a dated apiVersion", async () => {
    const res = await chat(`${proxy.base}/az-dated/chat/completions`, ask);
    expect(res.status).toBe(200);
    expect(fake.received[0]?.path).toBe('/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21');
  });

  it('calls a Foundry project with an Entra ID token from the client-credentials grant, cached until shortly before expiry', async () => {
    const before = entra.requests.length;
    const first = await chat(`${proxy.base}/az-foundry/chat/completions`, ask);
    const second = await chat(`${proxy.base}/az-foundry/chat/completions`, ask);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(fake.received.map((r) => r.path)).toEqual([
      '/api/projects/proj1/openai/v1/chat/completions',
      '/api/projects/proj1/openai/v1/chat/completions',
    ]);
    const token = fake.received[0]?.headers.authorization;
    expect(token).toMatch(/^Bearer fake-token-\d+$/);
    expect(fake.received[1]?.headers.authorization).toBe(token);
    expect(fake.received[0]?.headers['api-key']).toBeUndefined();
    expect(entra.requests.slice(before)).toEqual([
      {
        path: '/tenant-1/oauth2/v2.0/token',
        form: {
          grant_type: 'client_credentials',
          client_id: 'client-1',
          client_secret: CLIENT_SECRET,
          scope: 'https://cognitiveservices.azure.com/.default',
        },
      },
    ]);
    // 56 minutes on, the one-hour token is inside its renewal window: a new one is fetched.
    proxy.advance(56 * 60_000);
    await chat(`${proxy.base}/az-foundry/chat/completions`, ask);
    expect(entra.requests.length).toBe(before + 2);
    expect(fake.received[2]?.headers.authorization).not.toBe(token);
  });

  it('serves a GwModel Azure provider with an Entra ID token', async () => {
    const res = await chat(`${proxy.base}/models/chat/completions`, { ...ask, model: 'gpt-4o-mini' });
    expect(res.status).toBe(200);
    expect(fake.received[0]?.path).toBe('/openai/v1/chat/completions');
    expect(fake.received[0]?.headers.authorization).toMatch(/^Bearer fake-token-\d+$/);
  });

  it('answers 502 credential_unavailable when the token endpoint refuses, without the secret anywhere', async () => {
    entra.mode = 'fail';
    const res = await chat(`${proxy.base}/az-other/chat/completions`, ask);
    expect(res.status).toBe(502);
    expect(res.json()).toMatchObject({
      error: { code: 'credential_unavailable', message: expect.stringContaining('answered 401 (invalid_client)') },
    });
    expect(res.text).not.toContain(OTHER_SECRET);
    expect(fake.received).toEqual([]);
    for (const line of proxy.logs)
      for (const s of [KEY, CLIENT_SECRET, OTHER_SECRET, 'fake-token-']) expect(line).not.toContain(s);
  });
});
