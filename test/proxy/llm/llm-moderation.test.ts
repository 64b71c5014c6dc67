// GwBackend `openai.moderation` (inline moderation) through the real translator and proxy runtime. The
// moderation endpoint is the loopback fake's `/v1/moderations` (OpenAI cannot be reached from tests): it
// flags inputs that contain FLAGGED_WORD. Block refuses flagged prompts and answers (streamed answers are
// held and moderated whole); Score passes them and reports; a Block provider whose moderation endpoint is
// down fails closed.
import { describe, expect, it } from 'vitest';
import { FLAGGED_WORD } from './fake-vendors.js';
import {
  GATEWAY,
  aiBackend,
  aiPolicy,
  aiRoute,
  chat,
  counter,
  secret,
  sseData,
  streamedText,
  useFakeAndProxy,
} from './llm-harness.js';

const KEY = 'sk-test-SECRET-moderation-0123456789';
/** GUARDRAIL_STREAM_BUFFER_BYTES of this proxy: small, to reach it. */
const LIMIT = 2048;

function manifests(port: number): string {
  const provider = (policy: string): string =>
    `openai: {moderation: {policy: ${policy}}}, host: 127.0.0.1, port: ${port}`;
  return `${GATEWAY}${secret('openai-key', { Authorization: KEY })}
${aiBackend('block', provider('{input: {mode: Block}, output: {mode: Block}}'), '{auth: {secretRef: {name: openai-key}}}')}
${aiBackend('score', provider('{input: {mode: Score}, output: {mode: Score}}'), '{auth: {secretRef: {name: openai-key}}}')}
${aiBackend('plain', `openai: {}, host: 127.0.0.1, port: ${port}`, '{auth: {secretRef: {name: openai-key}}}')}
${aiBackend('masked', provider('{output: {mode: Block}}'), '{auth: {secretRef: {name: openai-key}}}')}
${aiPolicy('masked', 'masked', `{promptGuard: {streaming: Buffered, response: [{regex: {matches: [{name: word, pattern: ${FLAGGED_WORD}}], action: Mask}}]}}`)}
${aiBackend('unheld', provider('{output: {mode: Block}}'), '{auth: {secretRef: {name: openai-key}}}')}
${aiPolicy('unheld', 'unheld', `{promptGuard: {streaming: Disabled, response: [{regex: {matches: [{pattern: classified}]}}]}}`)}
${aiRoute('block', '/block', 'block')}${aiRoute('score', '/score', 'score')}${aiRoute('plain', '/plain', 'plain')}
${aiRoute('masked', '/masked', 'masked')}${aiRoute('unheld', '/unheld', 'unheld')}`;
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
  const t = useFakeAndProxy('openai', manifests, { streamBufferBytes: LIMIT });
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

  it('Block: a flagged streamed answer is held, moderated once whole, and replaced by 403 content_flagged', async () => {
    // The fake streams `the FORBID` + `DEN answer`: only the assembled answer carries the flagged word.
    t.fake.mode = { kind: 'ok', content: `the ${FLAGGED_WORD} answer` };
    const res = await chat(`${t.proxy.base}/block/v1/chat/completions`, ask('hello', { stream: true }));
    expect(res.status).toBe(403);
    expect(res.json()).toMatchObject({ error: { code: 'content_flagged' } });
    expect(res.text).not.toContain('the FORBID');
    expect(res.text).not.toContain('DEN answer');
    expect(paths()).toEqual(['/v1/moderations', '/v1/chat/completions', '/v1/moderations']);
    expect(t.fake.received[2]?.body).toEqual({
      model: 'omni-moderation-latest',
      input: [`the ${FLAGGED_WORD} answer`],
    });
  });

  it('Block: a clean streamed answer is released byte for byte as the provider sent it, after its moderation', async () => {
    t.fake.mode = { kind: 'ok', content: 'a perfectly clean answer' };
    const body = ask('hello', { stream: true, stream_options: { include_usage: true } });
    const res = await chat(`${t.proxy.base}/block/v1/chat/completions`, body);
    const direct = await chat(`${t.proxy.base}/plain/v1/chat/completions`, body);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.text).toBe(direct.text);
    expect(streamedText(res.text)).toBe('a perfectly clean answer');
    expect(sseData(res.text).at(-1)).toBe('[DONE]');
    expect(res.headers.get('x-gw-moderation-output')).toBe('flagged=false; top=violence:0.0012');
    expect(t.fake.received[2]?.body).toEqual({ model: 'omni-moderation-latest', input: ['a perfectly clean answer'] });
  });

  it('Block: a streamed answer larger than GUARDRAIL_STREAM_BUFFER_BYTES fails closed (502), none of it sent', async () => {
    t.fake.mode = { kind: 'ok', content: `${'lorem ipsum '.repeat(LIMIT / 8)}tail` };
    const res = await chat(`${t.proxy.base}/block/v1/chat/completions`, ask('hello', { stream: true }));
    expect(res.status).toBe(502);
    expect(res.json()).toMatchObject({ error: { code: 'response_too_large' } });
    const message = String((res.json() as { error: { message: string } }).error.message);
    expect(message).toContain(`more than ${LIMIT} bytes`);
    expect(message).toContain('openai.moderation.policy.output');
    expect(res.text).not.toContain('lorem');
    expect(paths()).toEqual(['/v1/moderations', '/v1/chat/completions']);
  });

  it("a Buffered response guard and output moderation share one held stream: moderation checks the guard's masked answer", async () => {
    t.fake.mode = { kind: 'ok', content: `the ${FLAGGED_WORD} answer` };
    const res = await chat(`${t.proxy.base}/masked/v1/chat/completions`, ask('hello', { stream: true }));
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(FLAGGED_WORD);
    expect(streamedText(res.text)).toMatch(/^the .+ answer$/);
    expect(paths()).toEqual(['/v1/chat/completions', '/v1/moderations']);
    expect(t.fake.received[1]?.body).toEqual({
      model: 'omni-moderation-latest',
      input: [streamedText(res.text)],
    });
  });

  it('a streaming: Disabled response guard still does not see a stream held only for moderation', async () => {
    t.fake.mode = { kind: 'ok', content: 'this is classified material' };
    const res = await chat(`${t.proxy.base}/unheld/v1/chat/completions`, ask('hello', { stream: true }));
    expect(res.status).toBe(200);
    expect(streamedText(res.text)).toBe('this is classified material');
    expect(res.headers.get('x-gw-moderation-output')).toBe('flagged=false; top=violence:0.0012');
  });

  it('Score: a flagged streamed answer passes as sent, with its scores in the header', async () => {
    t.fake.mode = { kind: 'ok', content: `the ${FLAGGED_WORD} answer` };
    const res = await chat(`${t.proxy.base}/score/v1/chat/completions`, ask('hello', { stream: true }));
    expect(res.status).toBe(200);
    expect(streamedText(res.text)).toBe(`the ${FLAGGED_WORD} answer`);
    expect(res.headers.get('x-gw-moderation-output')).toBe('flagged=true; categories=violence; top=violence:0.9100');
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
