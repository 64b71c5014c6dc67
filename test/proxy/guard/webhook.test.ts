// Guardrail webhook steps against the seed 000 reference webhook, running for real on loopback.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PromptGuards } from '../../../src/proxy/guard/factory.js';
import { chat, completion, ctxOf, guardsFor, llmManifests, webhookBackend, webhookRef } from './guard-harness.js';
import { startReferenceWebhook, type ReferenceWebhook } from './reference-webhook.js';

const all: PromptGuards[] = [];
let hook: ReferenceWebhook;
beforeAll(async () => {
  hook = await startReferenceWebhook();
});
afterAll(async () => {
  await Promise.all(all.map((p) => p.close()));
  await hook.close();
});
beforeEach(() => {
  hook.calls.length = 0;
  hook.delayMs = 0;
  delete hook.rawAnswer;
});

const both = (headers: Record<string, string> = {}) => ({
  request: [{ webhook: { backendRef: webhookRef, headers } }],
  response: [{ webhook: { backendRef: webhookRef, headers } }],
});
const guards = (pg: unknown, env: Record<string, string> = {}) =>
  guardsFor(llmManifests(pg, webhookBackend(hook.port)), all, env);

describe('guardrail webhook, request phase', () => {
  it('forwards the webhook rejection (403 text "request blocked") to the client', async () => {
    const g = guards(both());
    const body = chat({ role: 'user', content: 'please block this' });
    expect(await g.guards?.request?.(body, ctxOf(body))).toEqual({
      action: 'reject',
      status: 403,
      contentType: 'text/plain',
      body: 'request blocked',
    });
  });

  it('POSTs the messages to /request and allows what the webhook allows', async () => {
    const g = guards(both());
    const body = chat({ role: 'system', content: 'be brief' }, { role: 'user', content: 'hello' });
    expect(await g.guards?.request?.(body, ctxOf(body))).toEqual({ action: 'allow' });
    expect(hook.calls).toHaveLength(1);
    expect(hook.calls[0]).toMatchObject({
      method: 'POST',
      path: '/request',
      body: { phase: 'request', model: 'gpt-4o-mini', messages: body.messages },
    });
    expect(hook.calls[0]?.headers['content-type']).toBe('application/json');
  });
});

describe('guardrail webhook, response phase', () => {
  it('POSTs the choices to /response and returns the masked completion', async () => {
    const g = guards(both());
    const body = completion('please mask this word');
    const v = await g.guards?.response?.(body, ctxOf(chat({ role: 'user', content: 'hi' })));
    expect(v).toEqual({ action: 'modify', body: completion('please **** this word') });
    expect(hook.calls[0]).toMatchObject({
      method: 'POST',
      path: '/response',
      body: { phase: 'response', choices: body.choices },
    });
  });

  it('allows a response without the word', async () => {
    const g = guards(both());
    expect(await g.guards?.response?.(completion('fine'), ctxOf(chat()))).toEqual({ action: 'allow' });
  });
});

describe('guardrail webhook headers from CEL over the client request', () => {
  const headers = {
    'X-User': 'jwt.sub',
    'X-Tenant': 'request.headers["x-tenant"]',
    'X-Model': 'llmRequest.model',
    'X-Count': 'size(llmRequest.messages)',
    ':path': '"/check/" + request.headers["x-tenant"]',
    ':authority': '"guard.internal"',
    ':method': '"PUT"',
  };
  const client = (jwt?: Record<string, unknown>) => {
    const body = chat({ role: 'user', content: 'hi' });
    return {
      body,
      ctx: ctxOf(body, {
        request: { method: 'POST', path: '/v1/chat/completions', host: 'gw.example', headers: { 'x-tenant': 'acme' } },
        ...(jwt ? { jwt } : {}),
      }),
    };
  };

  it('sets headers and pseudo-headers from expressions in the request phase', async () => {
    const g = guards({ request: [{ webhook: { backendRef: webhookRef, headers } }] });
    const { body, ctx } = client({ sub: 'alice' });
    await g.guards?.request?.(body, ctx);
    const call = hook.calls[0];
    expect(call).toMatchObject({ method: 'PUT', path: '/check/acme' });
    expect(call?.headers).toMatchObject({
      'x-user': 'alice',
      'x-tenant': 'acme',
      'x-model': 'gpt-4o-mini',
      'x-count': '1',
      host: 'guard.internal',
    });
  });

  it('omits a header whose expression fails (jwt.sub without a token) and still calls the webhook', async () => {
    const g = guards({ request: [{ webhook: { backendRef: webhookRef, headers } }] });
    const { body, ctx } = client();
    expect(await g.guards?.request?.(body, ctx)).toEqual({ action: 'allow' });
    expect(hook.calls[0]?.headers['x-user']).toBeUndefined();
    expect(hook.calls[0]?.headers['x-tenant']).toBe('acme');
  });

  it('keeps the default path when the :path expression fails', async () => {
    const g = guards(both({ ':path': 'jwt.path', 'X-User': 'jwt.sub' }));
    const body = chat({ role: 'user', content: 'hi' });
    await g.guards?.request?.(body, ctxOf(body));
    await g.guards?.response?.(completion('ok'), ctxOf(body));
    expect(hook.calls.map((c) => c.path)).toEqual(['/request', '/response']);
  });

  it('keeps the default path and method when :path is not an absolute path or :method not a token', async () => {
    const g = guards({
      request: [
        { webhook: { backendRef: webhookRef, headers: { ':path': '"relative/path"', ':method': '"NOT A METHOD"' } } },
      ],
    });
    const body = chat({ role: 'user', content: 'hi' });
    expect(await g.guards?.request?.(body, ctxOf(body))).toEqual({ action: 'allow' });
    expect(hook.calls[0]).toMatchObject({ method: 'POST', path: '/request' });
  });

  it('does not give llmRequest to response-phase expressions', async () => {
    const g = guards({
      response: [
        {
          webhook: {
            backendRef: webhookRef,
            headers: { 'X-Model': 'llmRequest.model', 'X-Tenant': 'request.headers["x-tenant"]' },
          },
        },
      ],
    });
    const { ctx } = client();
    await g.guards?.response?.(completion('ok'), ctx);
    expect(hook.calls[0]?.headers['x-model']).toBeUndefined();
    expect(hook.calls[0]?.headers['x-tenant']).toBe('acme');
  });

  it('never logs header values (they may carry credentials)', async () => {
    const { logs, ...g } = guards({
      request: [
        { webhook: { backendRef: webhookRef, headers: { Authorization: 'request.headers["authorization"]' } } },
      ],
    });
    const body = chat({ role: 'user', content: 'block me' });
    const ctx = ctxOf(body, {
      request: { method: 'POST', path: '/', host: 'gw', headers: { authorization: 'Bearer s3cr3t-token' } },
    });
    expect(await g.guards?.request?.(body, ctx)).toMatchObject({ status: 403 });
    expect(hook.calls[0]?.headers.authorization).toBe('Bearer s3cr3t-token');
    expect(logs.entries().length).toBeGreaterThan(0);
    expect(logs.text()).not.toContain('s3cr3t');
  });
});

describe('steps in order', () => {
  it('feeds a regex mask into the webhook, and the first reject stops the chain', async () => {
    const pg = {
      request: [
        { regex: { action: 'Mask', builtins: ['Email'] } },
        { webhook: { backendRef: webhookRef } },
        { regex: { action: 'Reject', matches: [{ pattern: 'forbidden' }] } },
      ],
    };
    const g = guards(pg);
    const ok = chat({ role: 'user', content: 'mail a@b.example' });
    expect(await g.guards?.request?.(ok, ctxOf(ok))).toEqual({
      action: 'modify',
      body: chat({ role: 'user', content: 'mail <EMAIL>' }),
    });
    expect(hook.calls[0]?.body.messages).toEqual([{ role: 'user', content: 'mail <EMAIL>' }]);
    const blocked = chat({ role: 'user', content: 'block forbidden' });
    expect(await g.guards?.request?.(blocked, ctxOf(blocked))).toMatchObject({ status: 403, body: 'request blocked' });
  });
});

describe('guardrail webhook failures fail closed', () => {
  it('answers 502 guard_unavailable when the webhook is down', async () => {
    const down = await startReferenceWebhook();
    await down.close();
    const { guards: g, logs } = guardsFor(llmManifests(both(), webhookBackend(down.port)), all);
    const body = chat({ role: 'user', content: 'hi' });
    const v = await g?.request?.(body, ctxOf(body));
    expect(v).toMatchObject({ action: 'reject', status: 502, contentType: 'application/json' });
    expect(JSON.parse((v as { body: string }).body)).toMatchObject({
      error: 'guard_unavailable',
      error_description: expect.stringContaining('GwBackend default/webhook') as string,
    });
    expect(logs.entries().some((e) => e.level === 50 && e.target === 'GwBackend default/webhook')).toBe(true);
  });

  it('answers 504 guard_timeout when the webhook is slower than GUARDRAIL_WEBHOOK_TIMEOUT_SECONDS', async () => {
    hook.delayMs = 1500;
    const g = guards(both(), { GUARDRAIL_WEBHOOK_TIMEOUT_SECONDS: '1' });
    const body = chat({ role: 'user', content: 'hi' });
    const v = await g.guards?.request?.(body, ctxOf(body));
    expect(v).toMatchObject({ action: 'reject', status: 504 });
    expect(JSON.parse((v as { body: string }).body)).toMatchObject({ error: 'guard_timeout' });
  });

  it.each([
    ['not JSON', 'yes'],
    ['no action', '{"ok":true}'],
    ['modify without messages', '{"action":"modify"}'],
  ])('answers 502 guard_bad_response for a 200 answer with %s', async (_what, raw) => {
    hook.rawAnswer = raw;
    const g = guards(both());
    const body = chat({ role: 'user', content: 'hi' });
    const v = await g.guards?.request?.(body, ctxOf(body));
    expect(v).toMatchObject({ action: 'reject', status: 502 });
    expect(JSON.parse((v as { body: string }).body)).toMatchObject({ error: 'guard_bad_response' });
  });
});
