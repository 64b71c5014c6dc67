// Response guards on streamed answers (`promptGuard.streaming: Buffered`) through the real translator and a
// real listener: loopback fakes of the OpenAI, Anthropic, Cohere and Bedrock (ConverseStream) APIs stream SSE or
// event-stream frames (the vendors cannot be reached from tests), the seed 000 reference webhook runs for
// real, and the OpenAI Python SDK (PyPI `openai`, scripts/python-openai.sh) reads one guarded stream.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPromptGuards, type PromptGuards } from '../../../src/proxy/guard/factory.js';
import { webhookBackend } from '../guard/guard-harness.js';
import { startReferenceWebhook, type ReferenceWebhook } from '../guard/reference-webhook.js';
import { BEDROCK_USAGE, startFakeBedrock, type FakeBedrock } from './fake-bedrock.js';
import { ANTHROPIC_USAGE, OPENAI_USAGE, startFakeVendor, type FakeVendor } from './fake-vendors.js';
import {
  GATEWAY,
  aiBackend,
  aiPolicy,
  aiRoute,
  chat,
  counter,
  gwModel,
  modelRoute,
  secret,
  sseData,
  startLlmProxy,
  streamedText,
  useFakeAndProxy,
  type LlmProxy,
} from './llm-harness.js';

const repo = join(import.meta.dirname, '../../..');
const LIMIT = 2048;
const withheld = `{regex: {matches: [{name: secret-word, pattern: classified}]}, customResponse: {statusCode: 451, message: answer withheld}}`;
const maskEmail = `{regex: {builtins: [Email], action: Mask}}`;
const guarded = (name: string, step: string, streaming = 'Buffered') =>
  aiPolicy(name, name, `{promptGuard: {streaming: ${streaming}, response: [${step}]}}`);
const ask = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  stream: true,
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});

/** gw_llm_tokens_total summed over every sample with these labels (one per provider). */
async function tokens(proxy: LlmProxy, labels: Record<string, string>): Promise<number> {
  const metric = await proxy.runtime.metrics.registry.getSingleMetric('gw_llm_tokens_total')?.get();
  return (metric?.values ?? [])
    .filter((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want))
    .reduce((sum, v) => sum + v.value, 0);
}

const hook: { w?: ReferenceWebhook; guards?: PromptGuards } = {};
beforeAll(async () => {
  hook.w = await startReferenceWebhook();
});
afterAll(async () => {
  await hook.guards?.close();
  await hook.w?.close();
});

describe('response guards on streamed OpenAI answers', () => {
  const t = useFakeAndProxy(
    'openai',
    (port) => {
      const backend = (name: string) => aiBackend(name, `openai: {}, host: 127.0.0.1, port: ${port}`);
      const webhookStep = `{webhook: {backendRef: {group: gw.dev, kind: GwBackend, name: webhook, port: ${hook.w?.port ?? 0}}}}`;
      return `${GATEWAY}${webhookBackend(hook.w?.port ?? 0)}
${backend('reject')}${guarded('reject', withheld)}${aiRoute('reject', '/reject', 'reject')}
${backend('open')}${guarded('open', withheld, 'Disabled')}${aiRoute('open', '/open', 'open')}
${backend('mask')}${guarded('mask', maskEmail)}${aiRoute('mask', '/mask', 'mask')}
${backend('hook')}${guarded('hook', webhookStep)}${aiRoute('hook', '/hook', 'hook')}`;
    },
    {
      // The buffer bound comes from the proxy's environment (GwParameters env); small here to reach it.
      llmGuards: (route, ref, log) => {
        hook.guards ??= createPromptGuards({ env: { GUARDRAIL_STREAM_BUFFER_BYTES: String(LIMIT) } });
        return hook.guards.llmGuards(route, ref, log);
      },
    },
  );

  it("answers a Reject step's customResponse instead of a streamed answer that matches, and sends none of it", async () => {
    t.fake.mode = { kind: 'ok', content: 'this is classified material' };
    const before = await counter(t.proxy.runtime, 'gw_llm_guard_verdicts_total', {
      phase: 'response',
      verdict: 'reject',
    });
    const res = await chat(`${t.proxy.base}/reject/v1/chat/completions`, ask('m'));
    expect(res.status).toBe(451);
    expect(res.json()).toEqual({ error: 'prompt_guard_rejected', error_description: 'answer withheld' });
    expect(res.text).not.toContain('classified');
    expect(
      await counter(t.proxy.runtime, 'gw_llm_guard_verdicts_total', { phase: 'response', verdict: 'reject' }),
    ).toBe(before + 1);
    // The same guard with streaming Disabled lets the stream pass unchecked.
    const open = await chat(`${t.proxy.base}/open/v1/chat/completions`, ask('m'));
    expect(open.status).toBe(200);
    expect(streamedText(open.text)).toBe('this is classified material');
  });

  it('releases an allowed stream byte for byte as the provider sent it, and still counts its tokens', async () => {
    t.fake.mode = { kind: 'ok', content: 'nothing to see here' };
    const labels = { model: 'held-usage', kind: 'output' };
    const before = await tokens(t.proxy, labels);
    const held = await chat(
      `${t.proxy.base}/reject/v1/chat/completions`,
      ask('held-usage', { stream_options: { include_usage: true } }),
    );
    const open = await chat(
      `${t.proxy.base}/open/v1/chat/completions`,
      ask('held-usage', { stream_options: { include_usage: true } }),
    );
    expect(held.status).toBe(200);
    expect(held.headers.get('content-type')).toBe('text/event-stream');
    expect(held.text).toBe(open.text);
    expect(sseData(held.text).at(-1)).toBe('[DONE]');
    expect(await tokens(t.proxy, labels)).toBe(before + 2 * OPENAI_USAGE.completion_tokens);
  });

  it('streams the masked answer, with the usage chunk and [DONE] of the original', async () => {
    t.fake.mode = { kind: 'ok', content: 'write to jane@example.com today' };
    const res = await chat(
      `${t.proxy.base}/mask/v1/chat/completions`,
      ask('m', { stream_options: { include_usage: true } }),
    );
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('jane@example.com');
    expect(streamedText(res.text)).toBe('write to <EMAIL> today');
    const events = sseData(res.text);
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((d) => JSON.parse(d) as Record<string, unknown>);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === 'chatcmpl-1')).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 7 } });
    expect(chunks.some((c) => JSON.stringify(c).includes('"finish_reason":"stop"'))).toBe(true);
  });

  it('sends the assembled answer to the response webhook and streams what it modified', async () => {
    hook.w!.calls.length = 0;
    t.fake.mode = { kind: 'ok', content: 'a mask on the streamed answer' };
    const res = await chat(`${t.proxy.base}/hook/v1/chat/completions`, ask('m'));
    expect(res.status).toBe(200);
    expect(streamedText(res.text)).toBe('a **** on the streamed answer');
    const call = hook.w!.calls.find((c) => c.path === '/response');
    expect(call?.body).toMatchObject({
      phase: 'response',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'a mask on the streamed answer' }, finish_reason: 'stop' },
      ],
    });
  });

  it('fails closed with 502 response_too_large when a stream outgrows GUARDRAIL_STREAM_BUFFER_BYTES, sending none of it', async () => {
    const long = `${'lorem ipsum '.repeat(LIMIT / 8)}jane@example.com`;
    t.fake.mode = { kind: 'ok', content: long };
    const res = await chat(`${t.proxy.base}/mask/v1/chat/completions`, ask('m'));
    expect(res.status).toBe(502);
    // An LLM route answers its errors in OpenAI's shape.
    expect(res.json()).toMatchObject({
      error: { code: 'response_too_large', message: expect.stringContaining(`more than ${LIMIT} bytes`) as string },
    });
    expect(res.text).not.toContain('lorem');
  });

  it('the OpenAI Python SDK reads the masked stream, and raises the rejection with its status', async () => {
    const python = (
      await promisify(execFile)('bash', [join(repo, 'scripts/python-openai.sh')], { timeout: 300_000 })
    ).stdout.trim();
    const script = `
import sys, openai
client = openai.OpenAI(base_url=sys.argv[1], api_key="unused", max_retries=0)
try:
    stream = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], stream=True)
    print("TEXT " + "".join(c.choices[0].delta.content or "" for c in stream if c.choices))
except openai.APIStatusError as e:
    print(f"ERROR {e.status_code} {e.message}")
`;
    const run = async (path: string) =>
      (await promisify(execFile)(python, ['-c', script, `${t.proxy.base}${path}`], { timeout: 60_000 })).stdout.trim();
    t.fake.mode = { kind: 'ok', content: 'write to jane@example.com today' };
    expect(await run('/mask/v1')).toBe('TEXT write to <EMAIL> today');
    t.fake.mode = { kind: 'ok', content: 'this is classified material' };
    const rejected = await run('/reject/v1');
    expect(rejected).toMatch(/^ERROR 451 /);
    expect(rejected).not.toContain('classified material');
  }, 320_000);
});

describe('response guards on streams converted from Anthropic events', () => {
  const t = useFakeAndProxy(
    'anthropic',
    (
      port,
    ) => `${GATEWAY}${aiBackend('claude', `anthropic: {model: claude-test}, host: 127.0.0.1, port: ${port}`, '{auth: {key: k}}')}
${guarded('claude', maskEmail)}${aiRoute('claude', '/claude', 'claude')}`,
  );

  it('masks the converted stream and counts the streamed tokens', async () => {
    t.fake.mode = { kind: 'ok', content: 'mail jane@example.com now' };
    const labels = { provider: 'claude', model: 'claude-test', kind: 'output' };
    const before = await counter(t.proxy.runtime, 'gw_llm_tokens_total', labels);
    const res = await chat(`${t.proxy.base}/claude/v1/chat/completions`, ask('claude-test'));
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('jane@example.com');
    expect(streamedText(res.text)).toBe('mail <EMAIL> now');
    expect(sseData(res.text).at(-1)).toBe('[DONE]');
    expect(await counter(t.proxy.runtime, 'gw_llm_tokens_total', labels)).toBe(before + ANTHROPIC_USAGE.output_tokens);
  });
});

describe('response guards on Bedrock ConverseStream answers', () => {
  const SECRET_KEY = 'stream-guard-SECRET-key/0123456789';
  let fake: FakeBedrock;
  let proxy: LlmProxy;
  beforeAll(async () => {
    fake = await startFakeBedrock({ AKIDSTREAM: SECRET_KEY });
    const at = `host: 127.0.0.1, port: ${fake.port}`;
    const toolStep = `{regex: {matches: [{name: city, pattern: Paris}], scopes: [ToolInput]}, customResponse: {statusCode: 451, message: no cities}}`;
    proxy = await startLlmProxy(`${GATEWAY}${secret('aws-keys', { accessKey: 'AKIDSTREAM', secretKey: SECRET_KEY })}
${aiBackend('bedrock', `bedrock: {region: eu-west-1}, ${at}`, '{auth: {aws: {secretRef: {name: aws-keys}}}}')}
${aiPolicy('bedrock', 'bedrock', `{promptGuard: {streaming: Buffered, response: [${toolStep}, {regex: {matches: [{name: greeting, pattern: Hel+o}], action: Mask}}]}}`)}
${aiRoute('bedrock', '/bedrock', 'bedrock')}`);
  });
  afterAll(async () => {
    await proxy?.close();
    await fake?.close();
  });
  beforeEach(() => {
    fake.mode = { kind: 'ok' };
  });

  it('masks the text assembled from event-stream frames, and counts the tokens', async () => {
    const labels = { provider: 'bedrock', kind: 'output' };
    const before = await counter(proxy.runtime, 'gw_llm_tokens_total', labels);
    const res = await chat(`${proxy.base}/bedrock/v1/chat/completions`, ask('amazon.nova-lite-v1:0'));
    expect(res.status).toBe(200);
    expect(streamedText(res.text)).toBe('<GREETING>');
    expect(await counter(proxy.runtime, 'gw_llm_tokens_total', labels)).toBe(before + BEDROCK_USAGE.outputTokens);
  });

  it("rejects on a streamed tool call's assembled arguments (ToolInput)", async () => {
    fake.mode = { kind: 'tool' };
    const res = await chat(`${proxy.base}/bedrock/v1/chat/completions`, ask('amazon.nova-lite-v1:0'));
    expect(res.status).toBe(451);
    expect(res.json()).toEqual({ error: 'prompt_guard_rejected', error_description: 'no cities' });
    expect(res.text).not.toContain('Paris');
  });
});

describe('response guards of a GwModel on streams converted from Cohere events', () => {
  let fake: FakeVendor;
  let proxy: LlmProxy;
  beforeAll(async () => {
    fake = await startFakeVendor('cohere');
    proxy = await startLlmProxy(
      `${GATEWAY}${modelRoute('llm', '/v1')}${gwModel(
        'command-a',
        `  provider: Cohere
  baseURL: http://127.0.0.1:${fake.port}/v2
  policies:
    auth: {key: k}
    promptGuard: {streaming: Buffered, response: [${maskEmail}]}`,
      )}`,
    );
  });
  afterAll(async () => {
    await proxy?.close();
    await fake?.close();
  });

  it('masks the streamed answer and keeps the converted finish and [DONE]', async () => {
    fake.mode = { kind: 'ok', content: 'reach me at jane@example.com' };
    const res = await chat(`${proxy.base}/v1/chat/completions`, ask('command-a'));
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('jane@example.com');
    expect(streamedText(res.text)).toBe('reach me at <EMAIL>');
    expect(res.text).toContain('"finish_reason":"stop"');
    expect(sseData(res.text).at(-1)).toBe('[DONE]');
  });
});
