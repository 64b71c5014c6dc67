// Gemini through its OpenAI-compatible API: the real translator and proxy against a loopback FAKE of that
// API (fake-vendors.ts, the OpenAI fake: Google's endpoint speaks the same wire format), checking the
// vendor paths, the bearer key and the model override.
import { describe, expect, it } from 'vitest';
import { GATEWAY, aiBackend, aiRoute, chat, secret, useFakeAndProxy } from './llm-harness.js';

const KEY = 'gemini-SECRET-key-4242';

function manifests(port: number): string {
  return `${GATEWAY}${secret('gemini-key', { Authorization: KEY })}
${aiBackend('gemini', `gemini: {}, host: 127.0.0.1, port: ${port}`, '{auth: {secretRef: {name: gemini-key}}}')}
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: gemini-routes, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: gemini}]
  backend:
    ai: {routes: {/v1/models: Models, /v1/embeddings: Embeddings}}
${aiBackend('pinned', `gemini: {model: gemini-2.5-flash}, host: 127.0.0.1, port: ${port}`, '{auth: {key: inline-gemini-key}}')}
${aiRoute('gemini', '/gemini', 'gemini')}${aiRoute('pinned', '/pinned', 'pinned')}`;
}

describe('LLM routes to Gemini (OpenAI-compatible endpoint)', () => {
  const t = useFakeAndProxy('openai', manifests);

  it('sends chat completions to /v1beta/openai/chat/completions with the key as a bearer token', async () => {
    const res = await chat(`${t.proxy.base}/gemini/v1/chat/completions`, {
      model: 'gemini-2.0-flash',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ choices: [{ message: { content: 'Hello' } }] });
    const got = t.fake.received[0];
    expect(got?.path).toBe('/v1beta/openai/chat/completions');
    expect(got?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(got?.body.model).toBe('gemini-2.0-flash');
    for (const line of t.proxy.logs) expect(line).not.toContain(KEY);
  });

  it("replaces the request's model with the provider's model setting", async () => {
    const res = await chat(`${t.proxy.base}/pinned/chat/completions`, {
      model: 'anything',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(res.status).toBe(200);
    expect(t.fake.received[0]?.body.model).toBe('gemini-2.5-flash');
    expect(t.fake.received[0]?.headers.authorization).toBe('Bearer inline-gemini-key');
  });

  it('serves models and embeddings at the paths alongside chat', async () => {
    const models = await fetch(`${t.proxy.base}/gemini/v1/models`);
    expect(models.status).toBe(200);
    const emb = await chat(`${t.proxy.base}/gemini/v1/embeddings`, { model: 'text-embedding-004', input: 'x' });
    expect(emb.status).toBe(200);
    expect(t.fake.received.map((r) => r.path)).toEqual(['/v1beta/openai/models', '/v1beta/openai/embeddings']);
    expect(t.fake.received.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
  });
});
