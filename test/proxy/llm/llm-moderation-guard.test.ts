// The `openAIModeration` prompt guard through the real translator and the runtime's built-in guards. OpenAI's
// moderation endpoint cannot be reached from tests: GW_OPENAI_BASE_URL points the guard at the loopback
// fake's `/v1/moderations`, which flags inputs containing FLAGGED_WORD. The key comes from a Secret.
import { afterAll, describe, expect, it } from 'vitest';
import { createPromptGuards, type PromptGuards } from '../../../src/proxy/guard/factory.js';
import { FLAGGED_WORD } from './fake-vendors.js';
import { GATEWAY, aiBackend, aiPolicy, aiRoute, chat, secret, useFakeAndProxy } from './llm-harness.js';

const MOD_KEY = 'sk-test-SECRET-moderation-guard-42';

const guardPolicy = (name: string, backend: string, step: string): string =>
  aiPolicy(name, backend, `{promptGuard: {request: [${step}]}}`);

describe('the openAIModeration prompt guard', () => {
  const guards: { g?: PromptGuards } = {};
  const t = useFakeAndProxy(
    'openai',
    (port) => `${GATEWAY}${secret('moderation-key', { Authorization: MOD_KEY })}
${aiBackend('reject', `openai: {}, host: 127.0.0.1, port: ${port}`)}
${aiBackend('audit', `openai: {}, host: 127.0.0.1, port: ${port}`)}
${aiBackend('nokey', `openai: {}, host: 127.0.0.1, port: ${port}`)}
${guardPolicy('reject', 'reject', `{openAIModeration: {model: text-moderation-stable, policies: {auth: {secretRef: {name: moderation-key}}}}, customResponse: {statusCode: 451, message: flagged by moderation}}`)}
${guardPolicy('audit', 'audit', `{openAIModeration: {action: Audit, policies: {auth: {key: ${MOD_KEY}}}}}`)}
${guardPolicy('nokey', 'nokey', `{openAIModeration: {policies: {auth: {secretRef: {name: missing}}}}}`)}
${aiRoute('reject', '/reject', 'reject')}${aiRoute('audit', '/audit', 'audit')}${aiRoute('nokey', '/nokey', 'nokey')}`,
    {
      // Built on first use: the fake's port is known by then.
      llmGuards: (route, ref, log) => {
        guards.g ??= createPromptGuards({ env: { GW_OPENAI_BASE_URL: `http://127.0.0.1:${t.fake.port}/v1` } });
        return guards.g.llmGuards(route, ref, log);
      },
    },
  );
  afterAll(async () => {
    await guards.g?.close();
  });
  const ask = (content: string) => ({ model: 'm', messages: [{ role: 'user', content }] });

  it('Reject: a flagged prompt gets the customResponse and never reaches the provider', async () => {
    const res = await chat(`${t.proxy.base}/reject/v1/chat/completions`, ask(`say ${FLAGGED_WORD}`));
    expect(res.status).toBe(451);
    expect(res.text).toContain('flagged by moderation');
    expect(t.fake.received.map((r) => r.path)).toEqual(['/v1/moderations']);
    expect(t.fake.received[0]?.headers.authorization).toBe(`Bearer ${MOD_KEY}`);
    expect(t.fake.received[0]?.body).toEqual({ model: 'text-moderation-stable', input: [`say ${FLAGGED_WORD}`] });
    expect(t.proxy.logs.join('')).not.toContain(MOD_KEY);
  });

  it('Reject: a clean prompt is moderated, then sent to the provider', async () => {
    const res = await chat(`${t.proxy.base}/reject/v1/chat/completions`, ask('hello'));
    expect(res.status).toBe(200);
    expect(t.fake.received.map((r) => r.path)).toEqual(['/v1/moderations', '/v1/chat/completions']);
  });

  it('the moderation endpoint failing fails closed (502)', async () => {
    t.fake.mode = { kind: 'moderation-down' };
    const res = await chat(`${t.proxy.base}/reject/v1/chat/completions`, ask('hello'));
    expect(res.status).toBe(502);
    expect(res.json()).toMatchObject({ error: 'guard_unavailable' });
    expect(t.fake.received.map((r) => r.path)).toEqual(['/v1/moderations']);
  });

  it('Audit: a flagged prompt passes and is logged without its text', async () => {
    const res = await chat(`${t.proxy.base}/audit/v1/chat/completions`, ask(`say ${FLAGGED_WORD}`));
    expect(res.status).toBe(200);
    expect(t.fake.received.map((r) => r.path)).toEqual(['/v1/moderations', '/v1/chat/completions']);
    const line = t.proxy.logs.find((l) => l.includes('prompt guard moderation flagged'));
    expect(line).toContain('violence');
    expect(line).not.toContain(FLAGGED_WORD);
  });

  it('a key that cannot be resolved refuses the edge (503), never calls unauthenticated', async () => {
    const res = await chat(`${t.proxy.base}/nokey/v1/chat/completions`, ask('hello'));
    expect(res.status).toBe(503);
    expect(t.fake.received).toEqual([]);
  });
});
