// Bedrock through the Converse API: the real translator and proxy against a loopback FAKE of the Bedrock
// runtime (fake-bedrock.ts) that verifies every SigV4 signature on its own. OpenAI chat completions are
// converted both ways, streams included (AWS event-stream frames → OpenAI SSE chunks).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BEDROCK_USAGE, startFakeBedrock, type FakeBedrock } from './fake-bedrock.js';
import {
  GATEWAY,
  aiBackend,
  aiRoute,
  chat,
  counter,
  modelRoute,
  secret,
  sseData,
  startLlmProxy,
  type LlmProxy,
} from './llm-harness.js';

const SECRET_KEY = 'bedrock-SECRET-access-key/0123456789';
const SESSION = 'bedrock-SECRET-session-token';
const ENV_SECRET = 'env-SECRET-access-key/9876543210';
const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';

function manifests(port: number): string {
  const at = `host: 127.0.0.1, port: ${port}`;
  return `${GATEWAY}${secret('aws-keys', { accessKey: 'AKIDSECRETREF', secretKey: SECRET_KEY, sessionToken: SESSION })}
${aiBackend('bedrock', `bedrock: {region: eu-west-1, guardrail: {identifier: gr-1, version: '2'}}, ${at}`, '{auth: {aws: {secretRef: {name: aws-keys}}}}')}
${aiBackend('from-env', `bedrock: {model: amazon.nova-lite-v1:0}, ${at}`, '{auth: {aws: {}}}')}
${aiRoute('bedrock', '/bedrock', 'bedrock')}${aiRoute('from-env', '/from-env', 'from-env')}${modelRoute('llm', '/models')}---
apiVersion: gw.dev/v1alpha1
kind: GwModel
metadata: {name: nova, namespace: default}
spec:
  parentRefs: [{kind: HTTPRoute, name: llm, sectionName: chat}]
  match: {model: amazon.*}
  provider: Bedrock
  baseURL: http://127.0.0.1:${port}
  bedrock: {region: us-east-2}
  policies: {auth: {aws: {secretRef: {name: aws-keys}}}}
`;
}

const ask = { model: MODEL, messages: [{ role: 'user', content: 'Hi' }] };

describe('LLM routes to Bedrock (Converse API, SigV4)', () => {
  let fake: FakeBedrock;
  let proxy: LlmProxy;
  const saved = {
    id: process.env.AWS_ACCESS_KEY_ID,
    secret: process.env.AWS_SECRET_ACCESS_KEY,
    token: process.env.AWS_SESSION_TOKEN,
  };

  beforeAll(async () => {
    // The proxy's own environment, for the provider whose auth.aws names no Secret (this test file's process only).
    process.env.AWS_ACCESS_KEY_ID = 'AKIDFROMENV';
    process.env.AWS_SECRET_ACCESS_KEY = ENV_SECRET;
    delete process.env.AWS_SESSION_TOKEN;
    fake = await startFakeBedrock({ AKIDSECRETREF: SECRET_KEY, AKIDFROMENV: ENV_SECRET });
    proxy = await startLlmProxy(manifests(fake.port));
  });
  afterAll(async () => {
    await proxy?.close();
    await fake?.close();
    for (const [k, v] of [
      ['AWS_ACCESS_KEY_ID', saved.id],
      ['AWS_SECRET_ACCESS_KEY', saved.secret],
      ['AWS_SESSION_TOKEN', saved.token],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
  beforeEach(() => {
    fake.received.length = 0;
    fake.mode = { kind: 'ok' };
  });

  it('converts a chat request to Converse, signs it with the Secret keys and converts the answer back', async () => {
    const res = await chat(`${proxy.base}/bedrock/v1/chat/completions`, {
      model: MODEL,
      max_tokens: 50,
      temperature: 0.2,
      top_p: 0.9,
      stop: 'END',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'tu-0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'tu-0', content: 'Sunny' },
        { role: 'user', content: 'Thanks' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ],
      tool_choice: 'auto',
    });
    expect(res.status).toBe(200);
    const got = fake.received[0];
    expect(got?.signatureValid).toBe(true);
    expect(got?.accessKeyId).toBe('AKIDSECRETREF');
    expect(got?.scope).toMatch(/^\d{8}\/eu-west-1\/bedrock$/);
    expect(got?.headers['x-amz-security-token']).toBe(SESSION);
    expect(got?.path).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse');
    expect(got?.body).toEqual({
      system: [{ text: 'Be brief.' }],
      messages: [
        { role: 'user', content: [{ text: 'Weather in Paris?' }] },
        {
          role: 'assistant',
          content: [{ toolUse: { toolUseId: 'tu-0', name: 'get_weather', input: { city: 'Paris' } } }],
        },
        // The tool result and the next user message share one user turn: Converse alternates roles.
        {
          role: 'user',
          content: [{ toolResult: { toolUseId: 'tu-0', content: [{ text: 'Sunny' }] } }, { text: 'Thanks' }],
        },
      ],
      inferenceConfig: { maxTokens: 50, temperature: 0.2, topP: 0.9, stopSequences: ['END'] },
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: 'get_weather',
              description: 'Weather',
              inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } },
            },
          },
        ],
        toolChoice: { auto: {} },
      },
      guardrailConfig: { guardrailIdentifier: 'gr-1', guardrailVersion: '2' },
    });
    expect(res.json()).toMatchObject({
      object: 'chat.completion',
      model: MODEL,
      id: expect.stringMatching(/^chatcmpl-/),
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 },
    });
  });

  it('returns tool calls with finish_reason tool_calls', async () => {
    fake.mode = { kind: 'tool' };
    const res = await chat(`${proxy.base}/bedrock/chat/completions`, ask);
    expect(res.json()).toMatchObject({
      choices: [
        {
          message: {
            content: 'Checking.',
            tool_calls: [
              { id: 'tu-1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
    });
  });

  it('streams ConverseStream event-stream frames to the client as OpenAI SSE chunks, usage included', async () => {
    const before = await counter(proxy.runtime, 'gw_llm_tokens_total', {
      provider: 'bedrock',
      model: MODEL,
      kind: 'output',
    });
    const res = await chat(`${proxy.base}/bedrock/chat/completions`, {
      ...ask,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(fake.received[0]?.path).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse-stream');
    expect(fake.received[0]?.signatureValid).toBe(true);
    const data = sseData(res.text);
    expect(data[data.length - 1]).toBe('[DONE]');
    const chunks = data.slice(0, -1).map(
      (d) =>
        JSON.parse(d) as {
          choices: { delta: Record<string, unknown>; finish_reason: string | null }[];
          usage?: unknown;
          object: string;
        },
    );
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Hello');
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks[chunks.length - 1]?.usage).toEqual({ prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 });
    expect(
      await counter(proxy.runtime, 'gw_llm_tokens_total', { provider: 'bedrock', model: MODEL, kind: 'output' }),
    ).toBe(before + BEDROCK_USAGE.outputTokens);
  });

  it('streams tool calls as indexed tool_call deltas', async () => {
    fake.mode = { kind: 'tool' };
    const res = await chat(`${proxy.base}/bedrock/chat/completions`, { ...ask, stream: true });
    const chunks = sseData(res.text)
      .slice(0, -1)
      .map(
        (d) =>
          JSON.parse(d) as {
            choices: {
              delta: { tool_calls?: { index: number; id?: string; function: { name?: string; arguments: string } }[] };
              finish_reason: string | null;
            }[];
          },
      );
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls[0]).toMatchObject({ index: 0, id: 'tu-1', function: { name: 'get_weather', arguments: '' } });
    expect(calls.map((c) => c.function.arguments).join('')).toBe('{"city":"Paris"}');
    expect(chunks.some((c) => c.choices[0]?.finish_reason === 'tool_calls')).toBe(true);
  });

  it('passes a stream exception on as an error event, and cuts the client off on a corrupt frame', async () => {
    fake.mode = { kind: 'exception' };
    const res = await chat(`${proxy.base}/bedrock/chat/completions`, { ...ask, stream: true });
    expect(sseData(res.text).map((d) => (d === '[DONE]' ? d : (JSON.parse(d) as unknown)))).toContainEqual({
      error: { message: 'fake: slow down', type: 'throttlingException', param: null, code: null },
    });
    fake.mode = { kind: 'corrupt' };
    const cut = await fetch(`${proxy.base}/bedrock/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ask, stream: true }),
    });
    expect(cut.status).toBe(200);
    const text = await cut.text().catch(() => 'cut');
    expect(text).not.toContain('[DONE]');
  });

  it("relays a Bedrock error with its status in OpenAI's error shape", async () => {
    fake.mode = { kind: 'status', status: 400, type: 'ValidationException' };
    const res = await chat(`${proxy.base}/bedrock/chat/completions`, ask);
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({
      error: { message: 'fake 400', type: 'ValidationException', param: null, code: null },
    });
  });

  it("signs with the proxy's own AWS environment when auth.aws names no Secret, in the provider's region, dropping the client's x-amz headers", async () => {
    const res = await chat(`${proxy.base}/from-env/chat/completions`, ask, {
      'x-amz-security-token': 'client-token',
      'x-amz-date': '20000101T000000Z',
    });
    expect(res.status).toBe(200);
    expect(fake.received[0]).toMatchObject({
      signatureValid: true,
      accessKeyId: 'AKIDFROMENV',
      path: '/model/amazon.nova-lite-v1%3A0/converse',
    });
    expect(fake.received[0]?.scope).toMatch(/\/us-east-1\/bedrock$/);
    expect(fake.received[0]?.headers['x-amz-security-token']).toBeUndefined();
  });

  it('answers 500 credential_missing without calling Bedrock when the environment has no keys', async () => {
    const id = process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_ACCESS_KEY_ID;
    try {
      const res = await chat(`${proxy.base}/from-env/chat/completions`, ask);
      expect(res.status).toBe(500);
      expect(res.json()).toMatchObject({
        error: { code: 'credential_missing', message: expect.stringContaining('AWS_ACCESS_KEY_ID') },
      });
      expect(fake.received).toEqual([]);
    } finally {
      process.env.AWS_ACCESS_KEY_ID = id;
    }
  });

  it('serves a GwModel Bedrock provider with the credential the translator resolved', async () => {
    const res = await chat(`${proxy.base}/models/chat/completions`, {
      model: 'amazon.titan-text-express-v1',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ choices: [{ message: { content: 'Hello' } }] });
    expect(fake.received[0]).toMatchObject({
      signatureValid: true,
      accessKeyId: 'AKIDSECRETREF',
      path: '/model/amazon.titan-text-express-v1/converse',
    });
    expect(fake.received[0]?.scope).toMatch(/\/us-east-2\/bedrock$/);
  });

  it('never writes keys, secrets or session tokens to the logs', () => {
    for (const line of proxy.logs) for (const s of [SECRET_KEY, SESSION, ENV_SECRET]) expect(line).not.toContain(s);
  });
});
