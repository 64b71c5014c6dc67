// The LLM forwarder calls prompt guards through the LlmGuards contract (src/proxy/guard/types.ts): a small
// real in-process implementation here, a loopback fake of the OpenAI API (fake-vendors.ts) upstream.
import { beforeEach, describe, expect, it } from 'vitest';
import type { GuardRequestContext, GuardVerdict, LlmGuards } from '../../../src/proxy/guard/types.js';
import { GATEWAY, aiBackend, aiRoute, chat, useFakeAndProxy } from './llm-harness.js';

/** Rejects prompts mentioning "forbidden", masks digits in prompts, and upper-cases answers containing "Hello". */
class WordGuards implements LlmGuards {
  heldStreams?: { maxBytes: number };
  readonly seen: { phase: string; body: Record<string, unknown>; ctx: GuardRequestContext }[] = [];

  request(body: Record<string, unknown>, ctx: GuardRequestContext): Promise<GuardVerdict> {
    this.seen.push({ phase: 'request', body, ctx });
    const text = JSON.stringify(body.messages);
    if (text.includes('forbidden'))
      return Promise.resolve({
        action: 'reject',
        status: 403,
        contentType: 'application/json',
        body: '{"error":"prompt_rejected"}',
      });
    if (/[0-9]/.test(text))
      return Promise.resolve({
        action: 'modify',
        body: { ...body, messages: JSON.parse(text.replace(/[0-9]/g, '#')) as unknown[] },
      });
    return Promise.resolve({ action: 'allow' });
  }

  response(body: Record<string, unknown>, ctx: GuardRequestContext): Promise<GuardVerdict> {
    this.seen.push({ phase: 'response', body, ctx });
    const choices = body.choices as { message: { content: string } }[];
    if (!choices[0]?.message.content.includes('Hello')) return Promise.resolve({ action: 'allow' });
    return Promise.resolve({
      action: 'modify',
      body: { ...body, choices: [{ ...choices[0], message: { role: 'assistant', content: 'HELLO' } }] },
    });
  }
}

describe('prompt guards on LLM routes', () => {
  const guards = new WordGuards();
  const built: string[] = [];
  const t = useFakeAndProxy(
    'openai',
    (port) => `${GATEWAY}${aiBackend('llm', `openai: {}, host: 127.0.0.1, port: ${port}`)}
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: prompt, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: llm}]
  backend:
    ai:
      modelAliases: {short: gpt-long-name}
      prompt: {prepend: [{role: system, content: Be kind.}]}
${aiRoute('llm', '/llm', 'llm')}`,
    {
      llmGuards: (route, ref) => {
        built.push(`${route.name} ${ref.backend}`);
        return guards;
      },
    },
  );
  beforeEach(() => {
    guards.seen.length = 0;
  });

  it('builds the guards once per LLM edge when the snapshot is applied', () => {
    expect(built).toEqual(['HTTPRoute/default/llm/0 GwBackend/default/llm']);
  });

  it('sends the request guard the shaped body and the client request as it arrived', async () => {
    const res = await chat(
      `${t.proxy.base}/llm/chat/completions`,
      { model: 'short', messages: [{ role: 'user', content: 'Hi' }] },
      { authorization: 'Bearer client-token', 'x-team': 'blue' },
    );
    expect(res.status).toBe(200);
    const req = guards.seen.find((s) => s.phase === 'request');
    expect(req?.body).toMatchObject({
      model: 'gpt-long-name',
      messages: [
        { role: 'system', content: 'Be kind.' },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(req?.ctx.llmRequest).toEqual({ model: 'short', messages: [{ role: 'user', content: 'Hi' }] });
    expect(req?.ctx.request).toMatchObject({ method: 'POST', path: '/llm/chat/completions' });
    expect(req?.ctx.request.headers['x-team']).toBe('blue');
    expect(req?.ctx.request.headers.authorization).toBeUndefined();
  });

  it("answers with a reject verdict's status and body and never calls the provider", async () => {
    const res = await chat(`${t.proxy.base}/llm/chat/completions`, {
      model: 'm',
      messages: [{ role: 'user', content: 'a forbidden topic' }],
    });
    expect(res.status).toBe(403);
    expect(res.text).toBe('{"error":"prompt_rejected"}');
    expect(t.fake.received).toEqual([]);
  });

  it('sends the body a modify verdict returns, and returns the body the response guard modified', async () => {
    const res = await chat(`${t.proxy.base}/llm/chat/completions`, {
      model: 'm',
      messages: [{ role: 'user', content: 'call 555 1234' }],
    });
    expect(res.status).toBe(200);
    expect(t.fake.received[0]?.body.messages).toEqual([
      { role: 'system', content: 'Be kind.' },
      { role: 'user', content: 'call ### ####' },
    ]);
    expect(res.json()).toMatchObject({ choices: [{ message: { content: 'HELLO' } }] });
    expect(guards.seen.find((s) => s.phase === 'response')?.body).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { content: 'Hello' } }],
    });
  });

  it('does not buffer streamed responses for the response guard unless the guards ask', async () => {
    const res = await chat(`${t.proxy.base}/llm/chat/completions`, {
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain('"content":"Hel"');
    expect(guards.seen.map((s) => s.phase)).toEqual(['request']);
  });
});

describe('prompt guards that ask for streamed answers (heldStreams)', () => {
  const guards = Object.assign(new WordGuards(), { heldStreams: { maxBytes: 1 << 20 } });
  const t = useFakeAndProxy(
    'openai',
    (port) =>
      `${GATEWAY}${aiBackend('llm', `openai: {}, host: 127.0.0.1, port: ${port}`)}${aiRoute('llm', '/llm', 'llm')}`,
    { llmGuards: () => guards },
  );

  it('holds a streamed answer for the response guard and streams what it returned', async () => {
    const res = await chat(`${t.proxy.base}/llm/chat/completions`, {
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('"content":"Hel"');
    expect(res.text).toContain('"content":"HELLO"');
    expect(guards.seen.find((s) => s.phase === 'response')?.body).toMatchObject({
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' }],
    });
  });
});
