// Prompt guards as a proxy runs them by default (no injected LlmGuards): GwPolicy backend.ai.promptGuard →
// the real translator → the runtime's built-in guards, with the seed 000 reference webhook for real on
// loopback and a loopback fake of the OpenAI API upstream (an LLM vendor cannot run here).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookBackend } from '../guard/guard-harness.js';
import { startReferenceWebhook, type ReferenceWebhook } from '../guard/reference-webhook.js';
import { GATEWAY, aiBackend, aiRoute, chat, counter, useFakeAndProxy } from './llm-harness.js';

const hook: { w?: ReferenceWebhook } = {};
beforeAll(async () => {
  hook.w = await startReferenceWebhook();
});
afterAll(async () => {
  await hook.w?.close();
});

describe('prompt guards on an LLM route, built in', () => {
  const t = useFakeAndProxy(
    'openai',
    (port) => `${GATEWAY}${aiBackend('llm', `openai: {}, host: 127.0.0.1, port: ${port}`)}
${webhookBackend(hook.w?.port ?? 0)}---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: guards, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: llm}]
  backend:
    ai:
      promptGuard:
        request:
        - regex: {builtins: [Ssn], action: Mask}
        - webhook:
            backendRef: {group: gw.dev, kind: GwBackend, name: webhook, port: ${hook.w?.port ?? 0}}
            headers: {x-team: 'request.headers["x-team"]'}
        response:
        - webhook:
            backendRef: {group: gw.dev, kind: GwBackend, name: webhook, port: ${hook.w?.port ?? 0}}
${aiRoute('llm', '/llm', 'llm')}`,
  );

  it('masks an SSN before the webhook and the provider see the prompt', async () => {
    hook.w!.calls.length = 0;
    const res = await chat(
      `${t.proxy.base}/llm/chat/completions`,
      { model: 'm', messages: [{ role: 'user', content: 'my ssn is 123-45-6789' }] },
      { 'x-team': 'blue' },
    );
    expect(res.status).toBe(200);
    const sent = JSON.stringify(t.fake.received[0]?.body.messages);
    expect(sent).not.toContain('123-45-6789');
    expect(sent).toContain('<SSN>');
    const request = hook.w!.calls.find((c) => c.path === '/request');
    expect(JSON.stringify(request?.body)).toContain('<SSN>');
    expect(request?.headers['x-team']).toBe('blue');
  });

  it('forwards the webhook rejection (403 request blocked) and never calls the provider', async () => {
    const res = await chat(`${t.proxy.base}/llm/chat/completions`, {
      model: 'm',
      messages: [{ role: 'user', content: 'please block this' }],
    });
    expect(res.status).toBe(403);
    expect(res.text).toBe('request blocked');
    expect(t.fake.received).toEqual([]);
    expect(await counter(t.proxy.runtime, 'gw_llm_guard_verdicts_total', { phase: 'request', verdict: 'reject' })).toBe(
      1,
    );
  });

  it('returns the answer the response webhook masked', async () => {
    t.fake.mode = { kind: 'ok', content: 'a mask on the answer' };
    const res = await chat(`${t.proxy.base}/llm/chat/completions`, {
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ choices: [{ message: { content: 'a **** on the answer' } }] });
  });
});

describe('prompt guards on a route whose backend is not an ai backend', () => {
  const t = useFakeAndProxy(
    'openai',
    (port) => `${GATEWAY}
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: plain, namespace: default}
spec:
  static: {host: 127.0.0.1, port: ${port}}
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: guards, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: plain}]
  backend:
    ai:
      promptGuard:
        request: [{regex: {builtins: [Ssn]}}]
${aiRoute('plain', '/plain', 'plain')}`,
  );

  it('refuses requests with 503 instead of forwarding them unguarded', async () => {
    const res = await chat(`${t.proxy.base}/plain/v1/chat/completions`, {
      model: 'm',
      messages: [{ role: 'user', content: 'my ssn is 123-45-6789' }],
    });
    expect(res.status).toBe(503);
    // Its route is not an LLM route: the gateway's own error shape.
    expect(res.json()).toMatchObject({ error: 'policy_not_enforced' });
    expect(t.fake.received).toEqual([]);
  });
});
