// AI field transformations and prompt caching (issue 34) through the real translator and proxy runtime,
// against loopback fakes of the OpenAI, Anthropic and Bedrock APIs that record the body they received:
// `transformations` on the chat request (outranking overrides), `finalTransformations` on the body in the
// provider's format, a failing expression that stops the request, cache breakpoints for Anthropic and
// Bedrock Converse, cache token counts in metrics and the access log, and a GwModel through the same code.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ANTHROPIC_CACHE_USAGE, startFakeVendor, type FakeVendor } from './fake-vendors.js';
import { BEDROCK_CACHE_USAGE, startFakeBedrock, type FakeBedrock } from './fake-bedrock.js';
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
  type LlmProxy,
} from './llm-harness.js';

const SECRET_KEY = 'transform-SECRET-access-key/0123456789';
const CLAUDE = 'claude-sonnet-4-20250514';
const BEDROCK_CLAUDE = 'anthropic.claude-3-7-sonnet-20250219-v1:0';
const TOOLS = [
  { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } },
  { type: 'function', function: { name: 'save', parameters: { type: 'object', properties: {} } } },
];
const conversation = {
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Hi' },
    { role: 'assistant', content: 'Hello' },
    { role: 'user', content: 'Weather?' },
  ],
  tools: TOOLS,
};

function manifests(openai: number, anthropic: number, bedrock: number): string {
  const cel = (s: string) => JSON.stringify(s);
  return `${GATEWAY}${secret('aws-keys', { accessKey: 'AKIDTRANSFORM', secretKey: SECRET_KEY })}
${aiBackend('openai', `openai: {}, host: 127.0.0.1, port: ${openai}`)}${aiPolicy(
    'openai-fields',
    'openai',
    `{overrides: [{field: max_tokens, value: 50}, {field: user, value: override}], transformations: [{field: max_tokens, expression: ${cel('llmRequest.max_tokens * 2.0')}}, {field: user, expression: ${cel("request.headers['x-tenant']")}}, {field: temperature, expression: 'null'}, {field: metadata.count, expression: ${cel('size(llmRequest.messages)')}}], finalTransformations: [{field: seed, expression: '42'}]}`,
  )}${aiBackend('strict', `openai: {}, host: 127.0.0.1, port: ${openai}`)}${aiPolicy(
    'strict-fields',
    'strict',
    `{transformations: [{field: model, expression: '"ok"'}, {field: user, expression: ${cel("request.headers['x-tenant']")}}]}`,
  )}---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: anthropic, namespace: default}
spec:
  ai:
    provider: {anthropic: {}, host: 127.0.0.1, port: ${anthropic}}
  policies:
    auth: {key: sk-ant-test}
    ai:
      promptCaching: {tools: true}
      transformations: [{field: max_tokens, expression: '300'}]
      finalTransformations: [{field: top_k, expression: '5'}]
${aiBackend('bedrock', `bedrock: {region: eu-west-1}, host: 127.0.0.1, port: ${bedrock}`, `{auth: {aws: {secretRef: {name: aws-keys}}}, ai: {promptCaching: {tools: true}, finalTransformations: [{field: inferenceConfig.maxTokens, expression: '77'}]}}`)}
${aiRoute('openai', '/openai', 'openai')}${aiRoute('strict', '/strict', 'strict')}${aiRoute('anthropic', '/anthropic', 'anthropic')}${aiRoute('bedrock', '/bedrock', 'bedrock')}${modelRoute('llm', '/models')}${gwModel(
    'gpt-shaped',
    `  provider: OpenAI
  baseURL: http://127.0.0.1:${openai}/v1
  policies:
    auth: {key: sk-model}
    transformations: [{field: user, expression: ${cel("'model-' + request.headers['x-tenant']")}}]
    finalTransformations: [{field: model, expression: '"gpt-upstream"'}]
`,
  )}---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: access-log, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  frontend:
    accessLog: {}
`;
}

describe('AI field transformations and prompt caching', () => {
  let openai: FakeVendor, anthropic: FakeVendor, bedrock: FakeBedrock;
  let proxy: LlmProxy;

  beforeAll(async () => {
    [openai, anthropic, bedrock] = await Promise.all([
      startFakeVendor('openai'),
      startFakeVendor('anthropic'),
      startFakeBedrock({ AKIDTRANSFORM: SECRET_KEY }),
    ]);
    proxy = await startLlmProxy(manifests(openai.port, anthropic.port, bedrock.port));
  });
  afterAll(async () => {
    await proxy?.close();
    await Promise.all([openai?.close(), anthropic?.close(), bedrock?.close()]);
  });
  beforeEach(() => {
    for (const f of [openai, anthropic, bedrock]) f.received.length = 0;
  });

  it('applies transformations after overrides (they outrank them) and finalTransformations last, for OpenAI', async () => {
    const res = await chat(
      `${proxy.base}/openai/v1/chat/completions`,
      { model: 'gpt-4o', temperature: 0.3, messages: [{ role: 'user', content: 'Hi' }] },
      { 'x-tenant': 'acme' },
    );
    expect(res.status).toBe(200);
    expect(openai.received[0]?.body).toEqual({
      model: 'gpt-4o',
      max_tokens: 100,
      user: 'acme',
      metadata: { count: 1 },
      seed: 42,
      messages: [{ role: 'user', content: 'Hi' }],
    });
  });

  it('applies them to streamed requests too', async () => {
    const res = await chat(
      `${proxy.base}/openai/v1/chat/completions`,
      { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'Hi' }] },
      { 'x-tenant': 'acme' },
    );
    expect(res.status).toBe(200);
    expect(sseData(res.text).at(-1)).toBe('[DONE]');
    expect(openai.received[0]?.body).toMatchObject({ stream: true, max_tokens: 100, user: 'acme', seed: 42 });
  });

  it('fails the request naming the field when an expression cannot be evaluated, and sends nothing', async () => {
    const res = await chat(`${proxy.base}/strict/v1/chat/completions`, {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(res.status).toBe(500);
    expect(res.json()).toMatchObject({
      error: { code: 'transformation_failed', message: expect.stringContaining('transformations field user') },
    });
    expect(openai.received).toEqual([]);
    expect(proxy.logs.some((l) => l.includes('LLM field transformation failed'))).toBe(true);
  });

  it('places Anthropic cache_control breakpoints on system, tools and the conversation, and counts cache tokens', async () => {
    const before = await counter(proxy.runtime, 'gw_llm_tokens_total', {
      provider: 'anthropic',
      model: CLAUDE,
      kind: 'cache_read',
    });
    const res = await chat(`${proxy.base}/anthropic/v1/chat/completions`, { model: CLAUDE, ...conversation });
    expect(res.status).toBe(200);
    const sent = anthropic.received[0]?.body as Record<string, unknown>;
    const ephemeral = { type: 'ephemeral' };
    expect(sent.system).toEqual([{ type: 'text', text: 'You are terse.', cache_control: ephemeral }]);
    const tools = sent.tools as Record<string, unknown>[];
    expect(tools.map((t) => t.cache_control)).toEqual([undefined, ephemeral]);
    const messages = sent.messages as { content: Record<string, unknown>[] }[];
    expect(messages.map((m) => m.content.at(-1)?.cache_control)).toEqual([undefined, undefined, ephemeral]);
    // transformations before the conversion (max_tokens), finalTransformations after it (Anthropic's top_k).
    expect(sent).toMatchObject({ max_tokens: 300, top_k: 5 });
    const usage = res.json().usage as Record<string, unknown>;
    expect(usage.prompt_tokens_details).toEqual({ cached_tokens: ANTHROPIC_CACHE_USAGE.cache_read_input_tokens });
    const labels = { provider: 'anthropic', model: CLAUDE };
    expect(await counter(proxy.runtime, 'gw_llm_tokens_total', { ...labels, kind: 'cache_read' })).toBe(
      before + ANTHROPIC_CACHE_USAGE.cache_read_input_tokens,
    );
    expect(await counter(proxy.runtime, 'gw_llm_tokens_total', { ...labels, kind: 'cache_write' })).toBeGreaterThan(0);
    await vi.waitFor(() => {
      const line = proxy.logs
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === 'access' && l.llm_model === CLAUDE);
      expect(line).toMatchObject({
        cache_read_tokens: ANTHROPIC_CACHE_USAGE.cache_read_input_tokens,
        cache_write_tokens: ANTHROPIC_CACHE_USAGE.cache_creation_input_tokens,
      });
    });
  });

  it('places the breakpoints on streamed Anthropic requests and counts their cache tokens', async () => {
    const labels = { provider: 'anthropic', model: CLAUDE, kind: 'cache_write' };
    const before = await counter(proxy.runtime, 'gw_llm_tokens_total', labels);
    const res = await chat(`${proxy.base}/anthropic/v1/chat/completions`, {
      model: CLAUDE,
      stream: true,
      ...conversation,
    });
    expect(res.status).toBe(200);
    expect(sseData(res.text).at(-1)).toBe('[DONE]');
    expect(JSON.stringify(anthropic.received[0]?.body)).toContain('"cache_control"');
    expect(await counter(proxy.runtime, 'gw_llm_tokens_total', labels)).toBe(
      before + ANTHROPIC_CACHE_USAGE.cache_creation_input_tokens,
    );
  });

  it('places no breakpoint for a Claude family without prompt caching', async () => {
    const res = await chat(`${proxy.base}/anthropic/v1/chat/completions`, { model: 'claude-2.1', ...conversation });
    expect(res.status).toBe(200);
    const sent = anthropic.received[0]?.body as Record<string, unknown>;
    expect(JSON.stringify(sent)).not.toContain('cache_control');
    expect(sent.system).toBe('You are terse.');
  });

  it('places Bedrock Converse cachePoints (buffered and streamed) and applies finalTransformations to the Converse body', async () => {
    for (const stream of [false, true]) {
      const res = await chat(`${proxy.base}/bedrock/v1/chat/completions`, {
        model: BEDROCK_CLAUDE,
        ...(stream ? { stream: true } : {}),
        ...conversation,
      });
      expect(res.status).toBe(200);
      const sent = bedrock.received.at(-1)?.body as Record<string, unknown>;
      const point = { cachePoint: { type: 'default' } };
      expect(sent.system).toEqual([{ text: 'You are terse.' }, point]);
      expect(((sent.toolConfig as Record<string, unknown>).tools as unknown[]).at(-1)).toEqual(point);
      const messages = sent.messages as { content: unknown[] }[];
      expect(messages.at(-1)?.content.at(-1)).toEqual(point);
      expect(messages.slice(0, -1).some((m) => JSON.stringify(m).includes('cachePoint'))).toBe(false);
      expect(sent.inferenceConfig).toMatchObject({ maxTokens: 77 });
    }
    const labels = { provider: 'bedrock', model: BEDROCK_CLAUDE };
    expect(await counter(proxy.runtime, 'gw_llm_tokens_total', { ...labels, kind: 'cache_read' })).toBe(
      2 * BEDROCK_CACHE_USAGE.cacheReadInputTokens,
    );
  });

  it('places no cachePoint on tools for Amazon Nova, which caches only system and messages', async () => {
    const res = await chat(`${proxy.base}/bedrock/v1/chat/completions`, {
      model: 'amazon.nova-pro-v1:0',
      ...conversation,
    });
    expect(res.status).toBe(200);
    const sent = bedrock.received[0]?.body as Record<string, unknown>;
    expect(JSON.stringify((sent.toolConfig as Record<string, unknown>).tools)).not.toContain('cachePoint');
    expect(JSON.stringify(sent.system)).toContain('cachePoint');
  });

  it("applies a GwModel's transformations and finalTransformations through the same code", async () => {
    const res = await chat(
      `${proxy.base}/models/v1/chat/completions`,
      { model: 'gpt-shaped', messages: [{ role: 'user', content: 'Hi' }] },
      { 'x-tenant': 'acme' },
    );
    expect(res.status).toBe(200);
    expect(openai.received[0]?.body).toEqual({
      model: 'gpt-upstream',
      user: 'model-acme',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const failed = await chat(`${proxy.base}/models/v1/chat/completions`, {
      model: 'gpt-shaped',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(failed.status).toBe(500);
    expect(openai.received).toHaveLength(1);
  });
});
