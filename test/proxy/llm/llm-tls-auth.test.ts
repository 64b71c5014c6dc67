// LLM providers over HTTPS (the edge's backend.tls with a test CA), Azure OpenAI addressing, and
// passthrough of a client key validated by API-key authentication. Upstream is a loopback fake of the
// OpenAI API (fake-vendors.ts) serving HTTPS with a test-only certificate (tls-testdata/).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../../src/proxy/auth/route-security.js';
import { GATEWAY, aiBackend, aiRoute, chat, secret, useFakeAndProxy } from './llm-harness.js';

const file = (f: string): string => readFileSync(join(import.meta.dirname, '..', 'tls-testdata', f), 'utf8');
const AZURE_KEY = 'azure-test-SECRET-key-77';
const CLIENT_KEY = 'sk-client-team-a-1234';

function manifests(port: number): string {
  const named = (name: string, provider: string, policies: string) =>
    aiBackend(name, `${provider}, host: 127.0.0.1, port: ${port}`, policies);
  const tls = '{tls: {sni: a.example.test, caCertificateRefs: [{name: test-ca}]}';
  return `${GATEWAY}${secret('client-keys', { teamA: CLIENT_KEY })}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: test-ca, namespace: default}
data: {ca.crt: ${JSON.stringify(file('ca.crt'))}}
${named('secure', 'openai: {}', `${tls}}`)}${named('azure', "azureopenai: {endpoint: https://res.openai.azure.com/, deploymentName: dep-1, apiVersion: '2024-10-21'}", `${tls}, auth: {key: ${AZURE_KEY}}}`)}${named('own-key', 'custom: {formats: [{format: Completions}]}', `${tls}, auth: {passthrough: {}}}`)}
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: client-keys, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: own-key}]
  traffic: {apiKeyAuthentication: {secretRef: {name: client-keys}}}
${aiRoute('secure', '/secure', 'secure')}${aiRoute('azure', '/azure', 'azure')}${aiRoute('own-key', '/own-key', 'own-key')}`;
}

const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] };

describe('LLM providers over TLS, Azure OpenAI addressing and validated passthrough', () => {
  const t = useFakeAndProxy(
    'openai',
    manifests,
    { security: createRouteSecurity() },
    { cert: file('a.crt'), key: file('a.key') },
  );

  it("speaks HTTPS to a provider with the edge's backend.tls", async () => {
    const res = await chat(`${t.proxy.base}/secure/chat/completions`, body);
    expect(res.status).toBe(200);
    expect(t.fake.received[0]?.tls).toBe(true);
  });

  it('addresses an Azure OpenAI deployment with api-version and the api-key header', async () => {
    const res = await chat(`${t.proxy.base}/azure/chat/completions`, body);
    expect(res.status).toBe(200);
    const got = t.fake.received[0];
    expect(got?.path).toBe('/openai/deployments/dep-1/chat/completions?api-version=2024-10-21');
    expect(got?.headers['api-key']).toBe(AZURE_KEY);
    expect(got?.headers.authorization).toBeUndefined();
  });

  it('passes a client key through only after API-key authentication accepted it', async () => {
    const ok = await chat(`${t.proxy.base}/own-key/v1/chat/completions`, body, {
      authorization: `Bearer ${CLIENT_KEY}`,
    });
    expect(ok.status).toBe(200);
    expect(t.fake.received[0]?.headers.authorization).toBe(`Bearer ${CLIENT_KEY}`);
    const bad = await chat(`${t.proxy.base}/own-key/v1/chat/completions`, body, { authorization: 'Bearer sk-guessed' });
    expect(bad.status).toBe(401);
    expect(t.fake.received).toHaveLength(1);
    for (const line of t.proxy.logs) for (const k of [AZURE_KEY, CLIENT_KEY]) expect(line).not.toContain(k);
  });
});
