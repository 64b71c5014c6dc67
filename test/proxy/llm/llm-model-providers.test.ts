// GwModel providers AzureOpenAI, Cohere and HuggingFace through the real translator and proxy. The vendors
// cannot be reached from tests: each is a loopback FAKE (fake-vendors.ts) that records the wire (path,
// headers, JSON body) so the tests check what the real vendor would receive: Azure's `api-key` header and
// deployment path with api-version, Cohere's v2 chat request, HuggingFace's OpenAI-compatible router with a
// bearer token. Cohere answers (buffered and streamed) come back in OpenAI's chat format.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { COHERE_USAGE, OPENAI_USAGE, startFakeVendor, type FakeVendor } from './fake-vendors.js';
import {
  GATEWAY,
  chat,
  counter,
  gwModel,
  modelRoute,
  secret,
  sseData,
  startLlmProxy,
  type LlmProxy,
} from './llm-harness.js';

const AZURE_KEY = 'azure-SECRET-key-77';
const COHERE_KEY = 'cohere-SECRET-key-42';
const HF_TOKEN = 'hf_SECRET_token_9';
const user = (content: string) => [{ role: 'user', content }];

describe('GwModel providers AzureOpenAI, Cohere and HuggingFace', () => {
  let openai: FakeVendor, cohere: FakeVendor, proxy: LlmProxy;

  beforeAll(async () => {
    [openai, cohere] = await Promise.all([startFakeVendor('openai'), startFakeVendor('cohere')]);
    const o = `http://127.0.0.1:${openai.port}`;
    proxy = await startLlmProxy(
      `${GATEWAY}${secret('cohere-key', { Authorization: COHERE_KEY })}${secret('hf', { Authorization: HF_TOKEN })}${modelRoute('llm', '/v1')}${gwModel(
        'azure-v1',
        `  provider: AzureOpenAI\n  baseURL: ${o}\n  policies: {auth: {key: ${AZURE_KEY}}}`,
      )}${gwModel(
        'azure-deployed',
        `  provider: AzureOpenAI\n  baseURL: ${o}/openai/deployments/prod-4o\n  policies: {auth: {key: ${AZURE_KEY}}}`,
      )}${gwModel(
        'azure-odd-path',
        `  provider: AzureOpenAI\n  baseURL: ${o}/somewhere\n  policies: {auth: {key: ${AZURE_KEY}}}`,
      )}${gwModel(
        'command-a',
        `  provider: Cohere\n  baseURL: http://127.0.0.1:${cohere.port}/v2\n  policies: {auth: {secretRef: {name: cohere-key}}}`,
      )}${gwModel(
        'llama',
        `  match: {model: meta-llama/Llama-3.1-8B-Instruct}\n  provider: HuggingFace\n  baseURL: ${o}/v1\n  policies: {auth: {secretRef: {name: hf}}}`,
      )}`,
    );
  });
  afterAll(async () => {
    await proxy?.close();
    await Promise.all([openai?.close(), cohere?.close()]);
  });
  beforeEach(() => {
    openai.received.length = 0;
    cohere.received.length = 0;
    cohere.mode = { kind: 'ok' };
  });

  it('calls an AzureOpenAI model at the v1 API with the api-key header and no bearer token', async () => {
    const res = await chat(`${proxy.base}/v1/chat/completions`, { model: 'azure-v1', messages: user('Hi') });
    expect(res.status).toBe(200);
    expect(openai.received[0]).toMatchObject({ path: '/openai/v1/chat/completions', body: { model: 'azure-v1' } });
    expect(openai.received[0]?.headers['api-key']).toBe(AZURE_KEY);
    expect(openai.received[0]?.headers.authorization).toBeUndefined();
  });

  it('calls the deployment a baseURL names, with the pinned api-version', async () => {
    const res = await chat(`${proxy.base}/v1/chat/completions`, { model: 'azure-deployed', messages: user('Hi') });
    expect(res.status).toBe(200);
    expect(openai.received[0]?.path).toBe('/openai/deployments/prod-4o/chat/completions?api-version=2024-10-21');
    expect(openai.received[0]?.headers['api-key']).toBe(AZURE_KEY);
  });

  it('refuses an AzureOpenAI baseURL path it cannot place instead of guessing', async () => {
    const res = await chat(`${proxy.base}/v1/chat/completions`, { model: 'azure-odd-path', messages: user('Hi') });
    expect(res.status).toBe(501);
    expect(res.json()).toMatchObject({
      error: { code: 'provider_not_supported', message: expect.stringContaining('/somewhere') },
    });
    expect(openai.received).toEqual([]);
  });

  it('converts a chat request to Cohere v2 chat and the answer back, counting its tokens', async () => {
    const labels = { provider: 'GwModel/default/command-a', model: 'command-a' };
    const before = await counter(proxy.runtime, 'gw_llm_tokens_total', { ...labels, kind: 'input' });
    const res = await chat(`${proxy.base}/v1/chat/completions`, {
      model: 'command-a',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      ],
      max_tokens: 50,
      top_p: 0.5,
      stop: 'END',
    });
    expect(res.status).toBe(200);
    const got = cohere.received[0];
    expect(got?.path).toBe('/v2/chat');
    expect(got?.headers.authorization).toBe(`Bearer ${COHERE_KEY}`);
    expect(got?.body).toEqual({
      model: 'command-a',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      ],
      max_tokens: 50,
      p: 0.5,
      stop_sequences: ['END'],
    });
    expect(res.json()).toMatchObject({
      id: 'cohere-1',
      object: 'chat.completion',
      model: 'command-a',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 23, completion_tokens: 4, total_tokens: 27 },
    });
    expect(await counter(proxy.runtime, 'gw_llm_tokens_total', { ...labels, kind: 'input' })).toBe(
      before + COHERE_USAGE.tokens.input_tokens,
    );
  });

  it('sends tools and tool results in Cohere form and returns its tool calls as OpenAI tool_calls', async () => {
    const res = await chat(`${proxy.base}/v1/chat/completions`, {
      model: 'command-a',
      messages: [
        { role: 'user', content: 'Find x' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c0', type: 'function', function: { name: 'lookup', arguments: '{"q":"y"}' } }],
        },
        { role: 'tool', tool_call_id: 'c0', content: 'nothing' },
      ],
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
      tool_choice: 'required',
    });
    expect(res.status).toBe(200);
    expect(cohere.received[0]?.body).toMatchObject({
      messages: [
        { role: 'user', content: 'Find x' },
        {
          role: 'assistant',
          tool_calls: [{ id: 'c0', type: 'function', function: { name: 'lookup', arguments: '{"q":"y"}' } }],
        },
        { role: 'tool', tool_call_id: 'c0', content: 'nothing' },
      ],
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
      tool_choice: 'REQUIRED',
    });
    expect(res.json()).toMatchObject({
      choices: [
        {
          message: {
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
    });
  });

  it('streams a Cohere answer as OpenAI chunks with the usage chunk the client asked for', async () => {
    const res = await chat(`${proxy.base}/v1/chat/completions`, {
      model: 'command-a',
      stream: true,
      stream_options: { include_usage: true },
      messages: user('Hi'),
    });
    expect(res.status).toBe(200);
    expect(cohere.received[0]?.body).toMatchObject({ stream: true });
    expect(cohere.received[0]?.headers.accept).toBe('text/event-stream');
    const data = sseData(res.text);
    expect(data[data.length - 1]).toBe('[DONE]');
    const chunks = data.slice(0, -1).map(
      (d) =>
        JSON.parse(d) as {
          choices: { delta: { content?: string }; finish_reason: string | null }[];
          usage?: unknown;
        },
    );
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Hello');
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks[chunks.length - 1]).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 23, completion_tokens: 4 },
    });
  });

  it('streams Cohere tool calls as OpenAI tool_calls deltas', async () => {
    const res = await chat(`${proxy.base}/v1/chat/completions`, {
      model: 'command-a',
      stream: true,
      messages: user('Find x'),
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
    });
    const chunks = sseData(res.text)
      .slice(0, -1)
      .map((d) => JSON.parse(d) as { choices: { delta: { tool_calls?: unknown[] }; finish_reason: string | null }[] });
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls).toEqual([
      { index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '' } },
      { index: 0, function: { arguments: '{"q":"x"}' } },
    ]);
    expect(chunks.some((c) => c.choices[0]?.finish_reason === 'tool_calls')).toBe(true);
    expect(res.text).not.toContain('"usage"');
  });

  it("passes a Cohere error on with its status in OpenAI's error shape", async () => {
    cohere.mode = { kind: 'status', status: 400 };
    const res = await chat(`${proxy.base}/v1/chat/completions`, { model: 'command-a', messages: user('Hi') });
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({ error: { message: 'fake 400', type: 'error', param: null, code: null } });
  });

  it("calls a HuggingFace model at the router's OpenAI-compatible path with the token from the Secret", async () => {
    const model = 'meta-llama/Llama-3.1-8B-Instruct';
    const res = await chat(`${proxy.base}/v1/chat/completions`, { model, messages: user('Hi') });
    expect(res.status).toBe(200);
    expect(openai.received[0]).toMatchObject({ path: '/v1/chat/completions', body: { model } });
    expect(openai.received[0]?.headers.authorization).toBe(`Bearer ${HF_TOKEN}`);
    expect(res.json()).toMatchObject({ usage: OPENAI_USAGE });
    const streamed = await chat(`${proxy.base}/v1/chat/completions`, { model, stream: true, messages: user('Hi') });
    expect(sseData(streamed.text).pop()).toBe('[DONE]');
  });

  it('never writes the keys or tokens to the log', () => {
    for (const line of proxy.logs) for (const s of [AZURE_KEY, COHERE_KEY, HF_TOKEN]) expect(line).not.toContain(s);
  });
});
