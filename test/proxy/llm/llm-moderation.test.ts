// GwBackend `openai.moderation` (inline moderation) through the real translator and proxy runtime. The
// moderation endpoint is the loopback fake's `/v1/moderations` (OpenAI cannot be reached from tests): it
// flags inputs that contain FLAGGED_WORD. Block refuses flagged prompts and answers; Score passes them
// and reports; a Block provider whose moderation endpoint is down fails closed.
import { describe, expect, it } from 'vitest';
import { FLAGGED_WORD } from './fake-vendors.js';
import { GATEWAY, aiBackend, aiRoute, chat, counter, secret, useFakeAndProxy } from './llm-harness.js';

const KEY = 'sk-test-SECRET-moderation-0123456789';

function manifests(port: number): string {
  const provider = (policy: string): string =>
    `openai: {moderation: {policy: ${policy}}}, host: 127.0.0.1, port: ${port}`;
  return `${GATEWAY}${secret('openai-key', { Authorization: KEY })}
${aiBackend('block', provider('{input: {mode: Block}, output: {mode: Block}}'), '{auth: {secretRef: {name: openai-key}}}')}
${aiBackend('score', provider('{input: {mode: Score}, output: {mode: Score}}'), '{auth: {secretRef: {name: openai-key}}}')}
${aiBackend('plain', `openai: {}, host: 127.0.0.1, port: ${port}`, '{auth: {secretRef: {name: openai-key}}}')}
${aiRoute('block', '/block', 'block')}${aiRoute('score', '/score', 'score')}${aiRoute('plain', '/plain', 'plain')}`;
}

const ask = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content },
  ],
  ...extra,
});

describe('inline moderation of an OpenAI provider (openai.moderation)', () => {
  const t = useFakeAndProxy('openai', manifests);
  const paths = (): string[] => t.fake.received.map((r) => r.path);

  it('Block: a flagged prompt gets 403 content_flagged and never reaches the chat endpoint', async () => {
    const res = await chat(`${t.proxy.base}/block/v1/chat/completions`, ask(`say ${FLAGGED_WORD}`));
    expect(res.status).toBe(403);
    expect(res.json()).toMatchObject({ error: { code: 'content_flagged' } });
    expect(String((res.json() as { error: { message: string } }).error.message)).toContain('violence');
    expect(paths()).toEqual(['/v1/moderations']);
    const asked = t.fake.received[0];
    expect(asked?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(asked?.body).toEqual({ model: 'omni-moderation-latest', input: ['Be brief.', `say ${FLAGGED_WORD}`] });
    expect(res.text).not.toContain(KEY);
  });

  it('Block: a clean prompt and answer pass, both moderated, with the scores in headers', async () => {
    const res = await chat(`${t.proxy.base}/block/v1/chat/completions`, ask('hello'));
    expect(res.status).toBe(200);
    expect(paths()).toEqual(['/v1/moderations', '/v1/chat/completions', '/v1/moderations']);
    expect(t.fake.received[2]?.body).toEqual({ model: 'omni-moderation-latest', input: ['Hello'] });
    expect(res.headers.get('x-gw-moderation-input')).toBe('flagged=false; top=violence:0.0012');
    expect(res.headers.get('x-gw-moderation-output')).toBe('flagged=false; top=violence:0.0012');
  });

  it('Block: a flagged answer is replaced by 403 content_flagged', async () => {
    t.fake.mode = { kind: 'ok', content: `the ${FLAGGED_WORD} answer` };
    const res = await chat(`${t.proxy.base}/block/v1/chat/completions`, ask('hello'));
    expect(res.status).toBe(403);
    expect(res.json()).toMatchObject({ error: { code: 'content_flagged' } });
    expect(res.text).not.toContain(FLAGGED_WORD);
  });

  it('Block: the moderation endpoint failing fails closed (502 moderation_unavailable, no chat call)', async () => {
    t.fake.mode = { kind: 'moderation-down' };
    const res = await chat(`${t.proxy.base}/block/v1/chat/completions`, ask('hello'));
    expect(res.status).toBe(502);
    expect(res.json()).toMatchObject({ error: { code: 'moderation_unavailable' } });
    expect(paths()).toEqual(['/v1/moderations']);
  });

  it('Block on answers refuses streamed requests (503) rather than streaming unmoderated text', async () => {
    const res = await chat(`${t.proxy.base}/block/v1/chat/completions`, ask('hello', { stream: true }));
    expect(res.status).toBe(503);
    expect(res.json()).toMatchObject({ error: { code: 'policy_not_enforced' } });
    expect(paths()).toEqual([]);
  });

  it('Score: flagged content passes, with the scores in headers and in gw_llm_moderation_total', async () => {
    const before = await counter(t.proxy.runtime, 'gw_llm_moderation_total', {
      provider: 'score',
      phase: 'input',
      result: 'flagged',
    });
    const res = await chat(`${t.proxy.base}/score/v1/chat/completions`, ask(`say ${FLAGGED_WORD}`));
    expect(res.status).toBe(200);
    expect(paths()).toEqual(['/v1/moderations', '/v1/chat/completions', '/v1/moderations']);
    expect(res.headers.get('x-gw-moderation-input')).toBe('flagged=true; categories=violence; top=violence:0.9100');
    expect(
      await counter(t.proxy.runtime, 'gw_llm_moderation_total', {
        provider: 'score',
        phase: 'input',
        result: 'flagged',
      }),
    ).toBe(before + 1);
  });

  it('Score: a moderation outage lets the request through and says so in the header', async () => {
    t.fake.mode = { kind: 'moderation-down' };
    const res = await chat(`${t.proxy.base}/score/v1/chat/completions`, ask('hello'));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gw-moderation-input')).toBe('error');
  });

  it('a provider without moderation is never asked', async () => {
    const res = await chat(`${t.proxy.base}/plain/v1/chat/completions`, ask(`say ${FLAGGED_WORD}`));
    expect(res.status).toBe(200);
    expect(paths()).toEqual(['/v1/chat/completions']);
  });
});
