// Failover across LLM providers and priority groups, against loopback fakes of the OpenAI and Anthropic
// APIs (fake-vendors.ts) and a closed port: which provider answers, and when the proxy must not switch.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../ports.js';
import { startFakeVendor, type FakeVendor } from './fake-vendors.js';
import { GATEWAY, aiBackend, aiRoute, chat, counter, sseData, startLlmProxy, type LlmProxy } from './llm-harness.js';

const body = { model: 'm', messages: [{ role: 'user', content: 'Hi' }] };

describe('LLM provider failover', () => {
  let a: FakeVendor, b: FakeVendor, c: FakeVendor;
  let proxy: LlmProxy;

  beforeAll(async () => {
    [a, b, c] = await Promise.all([startFakeVendor('openai'), startFakeVendor('openai'), startFakeVendor('anthropic')]);
    const dead = await freePort();
    const provider = (name: string, kind: string, port: number) =>
      `      - {name: ${name}, ${kind}: {}, host: 127.0.0.1, port: ${port}}\n`;
    proxy = await startLlmProxy(`${GATEWAY}
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: llm, namespace: default}
spec:
  ai:
    groups:
    - providers:
${provider('a', 'openai', a.port)}${provider('b', 'openai', b.port)}    - providers:
${provider('c', 'anthropic', c.port)}
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: deadfirst, namespace: default}
spec:
  ai:
    groups:
    - providers:
${provider('gone', 'openai', dead)}    - providers:
${provider('c2', 'anthropic', c.port)}
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: mixed, namespace: default}
spec:
  ai:
    groups:
    - providers:
      - {name: unset, openai: {}, host: 127.0.0.1, port: ${b.port}}
      - {name: fixed, openai: {model: fixed-model}, host: 127.0.0.1, port: ${a.port}}
${aiBackend('slow', `openai: {}, host: 127.0.0.1, port: ${a.port}`)}---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: slow-timeout, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: slow}]
  traffic:
    timeouts: {request: 300ms}
${aiRoute('llm', '/llm', 'llm')}${aiRoute('deadfirst', '/deadfirst', 'deadfirst')}${aiRoute('slow', '/slow', 'slow')}${aiRoute('mixed', '/mixed', 'mixed')}`);
  });
  afterAll(async () => {
    await proxy?.close();
    await Promise.all([a, b, c].map((f) => f?.close()));
  });
  beforeEach(() => {
    for (const f of [a, b, c]) {
      f.received.length = 0;
      f.mode = { kind: 'ok' };
      f.release();
    }
    // Past every backoff a previous case left.
    proxy.advance(120_000);
  });

  it('tries the other provider of the group after a 5xx, then leaves the failed one out during its backoff', async () => {
    a.mode = { kind: 'status', status: 502 };
    // The order inside a group is random: ask until a was tried first; b must have answered every time.
    for (let i = 0; i < 40 && a.received.length === 0; i++)
      expect((await chat(`${proxy.base}/llm/chat/completions`, body)).status).toBe(200);
    expect(a.received).toHaveLength(1);
    expect(c.received).toHaveLength(0);
    a.mode = { kind: 'ok' };
    for (let i = 0; i < 6; i++) expect((await chat(`${proxy.base}/llm/chat/completions`, body)).status).toBe(200);
    expect(a.received).toHaveLength(1);
    proxy.advance(6_000);
    for (let i = 0; i < 40 && a.received.length === 1; i++) await chat(`${proxy.base}/llm/chat/completions`, body);
    expect(a.received.length).toBeGreaterThan(1);
  });

  it('moves to the next priority group when every provider of the first answers 429 or 5xx', async () => {
    a.mode = { kind: 'status', status: 429, retryAfter: 1 };
    b.mode = { kind: 'status', status: 500 };
    const res = await chat(`${proxy.base}/llm/chat/completions`, body);
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ id: 'msg_1', object: 'chat.completion' });
    expect([a.received.length, b.received.length, c.received.length]).toEqual([1, 1, 1]);
    expect(
      await counter(proxy.runtime, 'gw_llm_requests_total', { provider: 'a', model: 'm', status: '429' }),
    ).toBeGreaterThan(0);
  });

  it('moves on after a connect failure', async () => {
    const res = await chat(`${proxy.base}/deadfirst/chat/completions`, body);
    expect(res.status).toBe(200);
    expect(c.received).toHaveLength(1);
    expect(
      await counter(proxy.runtime, 'gw_llm_requests_total', { provider: 'gone', model: 'm', status: 'connect' }),
    ).toBe(1);
  });

  it("answers with the last provider's status and body when every provider fails, then probes one provider while all back off", async () => {
    a.mode = { kind: 'status', status: 500 };
    b.mode = { kind: 'status', status: 500 };
    c.mode = { kind: 'status', status: 529 };
    const res = await chat(`${proxy.base}/llm/chat/completions`, body);
    expect(res.status).toBe(529);
    expect(res.json()).toEqual({ error: { message: 'fake 529', type: 'overloaded_error', param: null, code: null } });
    expect([a.received.length, b.received.length, c.received.length]).toEqual([1, 1, 1]);
    // Every provider backs off now; the one back soonest (fewest failures so far) still gets one probe per request.
    const probe = await chat(`${proxy.base}/llm/chat/completions`, body);
    expect([a.received.length + b.received.length + c.received.length, probe.status]).toEqual([
      4,
      c.received.length === 2 ? 529 : 500,
    ]);
    for (const f of [a, b, c]) f.mode = { kind: 'ok' };
    expect((await chat(`${proxy.base}/llm/chat/completions`, body)).status).toBe(200);
  });

  it('answers 503 with retry-after while every provider asked to be left alone (Retry-After)', async () => {
    for (const f of [a, b, c]) f.mode = { kind: 'status', status: 429, retryAfter: 30 };
    expect((await chat(`${proxy.base}/llm/chat/completions`, body)).status).toBe(429);
    const next = await chat(`${proxy.base}/llm/chat/completions`, body);
    expect(next.status).toBe(503);
    expect(next.json()).toMatchObject({ error: { code: 'no_healthy_provider' } });
    expect(Number(next.headers.get('retry-after'))).toBeGreaterThanOrEqual(29);
    expect([a.received.length, b.received.length, c.received.length]).toEqual([1, 1, 1]);
  });

  it('does not fail over once stream bytes reached the client: the cut stream is passed on as cut', async () => {
    a.mode = { kind: 'break' };
    b.mode = { kind: 'break' };
    const res = await fetch(`${proxy.base}/llm/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
    });
    expect(res.status).toBe(200);
    let text = '';
    await expect(
      (async () => {
        for await (const chunk of res.body as AsyncIterable<Uint8Array>) text += new TextDecoder().decode(chunk);
      })(),
    ).rejects.toThrow();
    expect(sseData(text).join('')).toContain('Hel');
    expect(text).not.toContain('[DONE]');
    expect(a.received.length + b.received.length).toBe(1);
    expect(c.received).toHaveLength(0);
  });

  it('serves a request without a model through the provider that sets one, whichever order the group is tried in', async () => {
    for (let i = 0; i < 6; i++)
      expect((await chat(`${proxy.base}/mixed/chat/completions`, { messages: body.messages })).status).toBe(200);
    expect(a.received.map((r) => r.body.model)).toEqual(Array(6).fill('fixed-model'));
    expect(b.received).toEqual([]);
  });

  it('answers 504 when no provider answers within the route timeout', async () => {
    a.mode = { kind: 'hang' };
    const started = Date.now();
    const res = await chat(`${proxy.base}/slow/chat/completions`, body);
    expect(res.status).toBe(504);
    expect(res.json()).toMatchObject({ error: { code: 'gateway_timeout' } });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
