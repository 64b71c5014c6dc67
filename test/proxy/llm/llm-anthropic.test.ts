// OpenAI chat requests to an Anthropic provider, through the real translator and proxy runtime, against a
// loopback fake of the Anthropic messages API (fake-vendors.ts): conversion both ways, buffered and streamed.
import { describe, expect, it } from 'vitest';
import { ANTHROPIC_USAGE } from './fake-vendors.js';
import { GATEWAY, aiRoute, chat, counter, sseData, useFakeAndProxy } from './llm-harness.js';

const KEY = 'sk-ant-test-SECRET-4242';

function manifests(port: number): string {
  return `${GATEWAY}
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: claude, namespace: default}
spec:
  ai:
    groups:
    - providers:
      - name: claude
        anthropic: {model: claude-test}
        host: 127.0.0.1
        port: ${port}
        pathPrefix: /proxy/v1
        policies: {auth: {key: ${KEY}}}
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: claude-routes, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: claude}]
  backend:
    ai: {routes: {/v1/messages: Messages}}
${aiRoute('claude', '/claude', 'claude')}`;
}

const tools = [
  {
    type: 'function',
    function: {
      name: 'weather',
      description: 'Weather by city',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  },
];

describe('LLM routes to an Anthropic provider', () => {
  const t = useFakeAndProxy('anthropic', manifests);

  it('converts the OpenAI request to Anthropic messages with x-api-key and anthropic-version', async () => {
    const res = await chat(
      `${t.proxy.base}/claude/v1/chat/completions`,
      {
        model: 'gpt-4o',
        stop: 'END',
        temperature: 0.3,
        tools,
        tool_choice: 'required',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'Rain' },
        ],
      },
      { authorization: 'Bearer client-token' },
    );
    expect(res.status).toBe(200);
    const got = t.fake.received[0];
    expect(got?.path).toBe('/proxy/v1/messages');
    expect(got?.headers['x-api-key']).toBe(KEY);
    expect(got?.headers['anthropic-version']).toBe('2023-06-01');
    expect(got?.headers.authorization).toBeUndefined();
    expect(got?.body).toEqual({
      model: 'claude-test',
      max_tokens: 4096,
      system: 'Be brief.',
      temperature: 0.3,
      stop_sequences: ['END'],
      tools: [
        {
          name: 'weather',
          description: 'Weather by city',
          input_schema: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
      tool_choice: { type: 'any' },
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Oslo' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'Rain' }] },
      ],
    });
  });

  it('converts the Anthropic message to an OpenAI chat completion with usage', async () => {
    const res = await chat(`${t.proxy.base}/claude/chat/completions`, {
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(t.fake.received[0]?.body.max_tokens).toBe(50);
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({
      id: 'msg_1',
      object: 'chat.completion',
      model: 'claude-test',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 13, completion_tokens: 5, total_tokens: 18 },
    });
  });

  it('converts the event stream to chat.completion.chunk events ending in [DONE], with the usage chunk when asked', async () => {
    const res = await chat(`${t.proxy.base}/claude/chat/completions`, {
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(t.fake.received[0]?.body.stream).toBe(true);
    const events = sseData(res.text);
    expect(events.pop()).toBe('[DONE]');
    const chunks = events.map(
      (e) =>
        JSON.parse(e) as {
          object: string;
          choices: { delta: Record<string, unknown>; finish_reason: string | null }[];
          usage?: unknown;
        },
    );
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Hello');
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks[chunks.length - 1]).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 13, completion_tokens: 5, total_tokens: 18 },
    });
  });

  it('leaves the usage chunk out when the client did not ask, and still counts the streamed tokens', async () => {
    const labels = { provider: 'claude', model: 'claude-test' };
    const before = await counter(t.proxy.runtime, 'gw_llm_tokens_total', { ...labels, kind: 'output' });
    const res = await chat(`${t.proxy.base}/claude/chat/completions`, {
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(sseData(res.text).some((e) => e.includes('"usage"'))).toBe(false);
    expect(await counter(t.proxy.runtime, 'gw_llm_tokens_total', { ...labels, kind: 'output' })).toBe(
      before + ANTHROPIC_USAGE.output_tokens,
    );
  });

  it('forwards a native Anthropic messages request unchanged when routes maps its path to Messages', async () => {
    const native = { model: 'claude-native', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] };
    const res = await chat(`${t.proxy.base}/claude/v1/messages`, native, { 'anthropic-beta': 'tools-1' });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ type: 'message', content: [{ type: 'text', text: 'Hello' }] });
    const got = t.fake.received[0];
    expect(got?.path).toBe('/proxy/v1/messages');
    expect(got?.body).toEqual(native);
    expect(got?.headers['x-api-key']).toBe(KEY);
    expect(got?.headers['anthropic-beta']).toBe('tools-1');
  });

  it("passes an Anthropic client error on with its status in OpenAI's error shape", async () => {
    t.fake.mode = { kind: 'status', status: 400 };
    const res = await chat(`${t.proxy.base}/claude/chat/completions`, { messages: [{ role: 'user', content: 'Hi' }] });
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({ error: { message: 'fake 400', type: 'overloaded_error', param: null, code: null } });
    for (const line of t.proxy.logs) expect(line).not.toContain(KEY);
  });
});
