// OpenAI-format LLM routes through the real translator and proxy runtime, against a loopback fake of the
// OpenAI API (fake-vendors.ts): request shaping, credentials, validation, streaming, usage metrics, logs.
import { describe, expect, it } from 'vitest';
import { OPENAI_USAGE } from './fake-vendors.js';
import { GATEWAY, aiBackend, aiRoute, chat, counter, secret, sseData, useFakeAndProxy } from './llm-harness.js';

const KEY = 'sk-test-SECRET-openai-0123456789';

function manifests(port: number): string {
  return `${GATEWAY}${secret('openai-key', { Authorization: KEY })}
${aiBackend('openai', `openai: {}, host: 127.0.0.1, port: ${port}`)}---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: openai-settings, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: openai}]
  backend:
    auth: {secretRef: {name: openai-key}}
    ai:
      modelAliases: {fast: gpt-fast-2}
      defaults: [{field: temperature, value: 0.5}, {field: max_tokens, value: 100}]
      overrides: [{field: user, value: gw}, {field: stream_options.include_usage, value: true}]
      prompt:
        prepend: [{role: system, content: Be brief.}]
        append: [{role: user, content: Thanks.}]
      routes: {/v1/models: Models, /v1/embeddings: Embeddings, /v1/messages: Messages, /v1/realtime: Realtime, /raw/thing: Passthrough}
${aiBackend('pinned', `openai: {model: gpt-pinned}, host: 127.0.0.1, port: ${port}, path: /custom/chat`)}---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: local, namespace: default}
spec:
  ai:
    groups:
    - providers:
      - name: vllm
        custom: {formats: [{format: Completions, path: /api/chat}]}
        host: 127.0.0.1
        port: ${port}
        policies: {auth: {passthrough: {}}}
${aiBackend('nokey', `openai: {}, host: 127.0.0.1, port: ${port}`)}---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: nokey-auth, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: nokey}]
  backend:
    auth: {secretRef: {name: missing-secret}}
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: small-body, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: small}]
  traffic:
    buffer: {request: {maxBytes: 1Ki}}
${aiRoute('openai', '/openai', 'openai')}${aiRoute('pinned', '/pinned', 'pinned')}${aiRoute('local', '/local', 'local')}${aiRoute('small', '/small', 'openai')}${aiRoute('nokey', '/nokey', 'nokey')}`;
}

describe('LLM routes to an OpenAI-format provider', () => {
  const t = useFakeAndProxy('openai', manifests);

  it('sends the chat request with aliases, defaults, overrides and prompt applied, and the key from the Secret', async () => {
    const res = await chat(
      `${t.proxy.base}/openai/v1/chat/completions`,
      { model: 'fast', temperature: 0.9, messages: [{ role: 'user', content: 'Hi' }] },
      { authorization: 'Bearer client-token', 'x-trace': 't1' },
    );
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { content: 'Hello' } }],
      usage: OPENAI_USAGE,
    });
    const got = t.fake.received[0];
    expect(got?.path).toBe('/v1/chat/completions');
    expect(got?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(got?.headers['x-trace']).toBe('t1');
    expect(got?.body).toEqual({
      model: 'gpt-fast-2',
      temperature: 0.9,
      max_tokens: 100,
      user: 'gw',
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'user', content: 'Thanks.' },
      ],
    });
  });

  it("replaces the request's model with the provider's model setting and uses the IR path override", async () => {
    const res = await chat(`${t.proxy.base}/pinned/chat/completions`, {
      model: 'whatever',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(res.status).toBe(200);
    expect(t.fake.received[0]?.path).toBe('/custom/chat');
    expect(t.fake.received[0]?.body.model).toBe('gpt-pinned');
    expect(t.fake.received[0]?.headers.authorization).toBeUndefined();
  });

  it('accepts a request without a model when the provider sets one, and refuses it with 400 when none does', async () => {
    expect(
      (await chat(`${t.proxy.base}/pinned/chat/completions`, { messages: [{ role: 'user', content: 'Hi' }] })).status,
    ).toBe(200);
    const res = await chat(`${t.proxy.base}/openai/chat/completions`, { messages: [{ role: 'user', content: 'Hi' }] });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ error: { code: 'invalid_request', message: expect.stringContaining('model') } });
  });

  it('answers 400 invalid_request naming the field for a body that is not a chat request', async () => {
    const cases: [unknown, string][] = [
      ['{not json', 'body is not valid JSON'],
      [[1, 2], 'body must be a JSON object'],
      [{ model: 'm' }, 'messages must be a non-empty array'],
      [{ model: 7, messages: [{ role: 'user', content: 'x' }] }, 'model must be a string'],
      [{ model: 'm', messages: [{ content: 'x' }] }, 'messages[0].role must be a non-empty string'],
      [{ model: 'm', messages: [{ role: 'user', content: 'x' }], stream: 'yes' }, 'stream must be a boolean'],
    ];
    for (const [body, description] of cases) {
      const res = await chat(`${t.proxy.base}/openai/chat/completions`, body);
      expect(res.status, description).toBe(400);
      // OpenAI's error shape, so the openai SDK shows the description.
      expect(res.json()).toEqual({
        error: { code: 'invalid_request', message: description, type: 'invalid_request_error', param: null },
      });
    }
    expect(t.fake.received).toEqual([]);
  });

  it("answers 413 for a body over the route's buffer limit without calling the provider", async () => {
    const res = await chat(`${t.proxy.base}/small/chat/completions`, {
      model: 'm',
      messages: [{ role: 'user', content: 'x'.repeat(2000) }],
    });
    expect(res.status).toBe(413);
    expect(res.json()).toMatchObject({ error: { code: 'payload_too_large' } });
    expect(t.fake.received).toEqual([]);
  });

  it('answers 500 credential_missing naming the Secret, never a keyless call, when the credential Secret does not exist', async () => {
    const res = await chat(`${t.proxy.base}/nokey/chat/completions`, {
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(res.status).toBe(500);
    expect(res.json()).toMatchObject({
      error: {
        code: 'credential_missing',
        type: 'server_error',
        message: expect.stringMatching(/backend credential is missing.*Secret default\/\S+ does not exist/),
      },
    });
    expect(t.fake.received).toEqual([]);
  });

  it('forwards the route types routes names (models, embeddings) unchanged, with the credential, to the vendor path', async () => {
    const models = await fetch(`${t.proxy.base}/openai/v1/models`, {
      headers: { authorization: 'Bearer client-token' },
    });
    expect(models.status).toBe(200);
    expect(models.headers.get('x-fake')).toBe('models');
    expect(await models.json()).toEqual({ object: 'list', data: [{ id: 'openai-model-1', object: 'model' }] });
    const embeddings = await chat(`${t.proxy.base}/openai/v1/embeddings`, { model: 'fast', input: 'hello' });
    expect(embeddings.status).toBe(200);
    expect(embeddings.json()).toMatchObject({ data: [{ embedding: [0.5, 0.25] }] });
    expect(t.fake.received.map((r) => [r.path, r.headers.authorization])).toEqual([
      ['/v1/models', `Bearer ${KEY}`],
      ['/v1/embeddings', `Bearer ${KEY}`],
    ]);
    // Unchanged: no aliases, defaults or prompt on anything but chat.
    expect(t.fake.received[1]?.body).toEqual({ model: 'fast', input: 'hello' });
  });

  it('forwards a Passthrough path as the client sent it, query included', async () => {
    const res = await fetch(`${t.proxy.base}/openai/raw/thing?x=1`, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: 'raw body',
    });
    expect(res.status).toBe(200);
    expect(t.fake.received[0]).toMatchObject({
      path: '/openai/raw/thing?x=1',
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${KEY}` },
    });
  });

  it("answers 404 in the client's wire format on an LLM-shaped path of a listener that serves LLM routes", async () => {
    const openai = await chat(`${t.proxy.base}/nowhere/v1/chat/completions`, { model: 'm', messages: [] });
    expect(openai.status).toBe(404);
    expect(openai.json()).toEqual({
      error: {
        code: 'not_found',
        type: 'invalid_request_error',
        param: null,
        message: expect.stringContaining('no route'),
      },
    });
    const anthropic = await chat(`${t.proxy.base}/nowhere/v1/messages`, { model: 'm', messages: [] });
    expect(anthropic.json()).toEqual({
      type: 'error',
      error: { type: 'not_found_error', message: expect.stringContaining('no route for /nowhere/v1/messages') },
    });
    const other = await fetch(`${t.proxy.base}/nowhere/index.html`);
    expect(await other.json()).toMatchObject({ error: 'not_found' });
  });

  it('answers 501 for realtime and for a route type no provider serves, and 405 for GET on completions', async () => {
    const realtime = await fetch(`${t.proxy.base}/openai/v1/realtime`);
    expect(realtime.status).toBe(501);
    expect(await realtime.json()).toMatchObject({
      error: { code: 'route_type_not_supported', message: expect.stringContaining('realtime') },
    });
    const messages = await chat(`${t.proxy.base}/openai/v1/messages`, { model: 'm', messages: [] });
    expect(messages.status).toBe(501);
    // A Messages path: Anthropic's error shape.
    expect(messages.json()).toEqual({
      type: 'error',
      error: { type: 'api_error', message: expect.stringContaining('none of its providers') },
    });
    const get = await fetch(`${t.proxy.base}/openai/v1/chat/completions`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(t.fake.received).toEqual([]);
  });

  it("passes the client's bearer token through to a passthrough provider, and answers 401 without one", async () => {
    const res = await chat(
      `${t.proxy.base}/local/v1/chat/completions`,
      { model: 'llama', messages: [{ role: 'user', content: 'Hi' }] },
      { authorization: 'Bearer client-own-key' },
    );
    expect(res.status).toBe(200);
    expect(t.fake.received[0]?.path).toBe('/api/chat');
    expect(t.fake.received[0]?.headers.authorization).toBe('Bearer client-own-key');
    const anonymous = await chat(`${t.proxy.base}/local/v1/chat/completions`, {
      model: 'llama',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.json()).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('streams SSE chunks to the client as they arrive, before the provider has finished', async () => {
    t.fake.mode = { kind: 'held' };
    const res = await fetch(`${t.proxy.base}/openai/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('"content":"Hel"');
    t.fake.release();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    const events = sseData(first + rest);
    expect(events[events.length - 1]).toBe('[DONE]');
    expect(events.some((e) => e.includes('"usage"'))).toBe(true);
  });

  it('counts requests and input and output tokens per provider and model, streamed responses included', async () => {
    const labels = { provider: 'openai', model: 'gpt-4o' };
    const before = {
      req: await counter(t.proxy.runtime, 'gw_llm_requests_total', { ...labels, status: '200' }),
      input: await counter(t.proxy.runtime, 'gw_llm_tokens_total', { ...labels, kind: 'input' }),
      output: await counter(t.proxy.runtime, 'gw_llm_tokens_total', { ...labels, kind: 'output' }),
    };
    await chat(`${t.proxy.base}/openai/chat/completions`, {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const streamed = await chat(`${t.proxy.base}/openai/chat/completions`, {
      model: 'gpt-4o',
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(sseData(streamed.text).pop()).toBe('[DONE]');
    expect(await counter(t.proxy.runtime, 'gw_llm_requests_total', { ...labels, status: '200' })).toBe(before.req + 2);
    expect(await counter(t.proxy.runtime, 'gw_llm_tokens_total', { ...labels, kind: 'input' })).toBe(
      before.input + 2 * OPENAI_USAGE.prompt_tokens,
    );
    expect(await counter(t.proxy.runtime, 'gw_llm_tokens_total', { ...labels, kind: 'output' })).toBe(
      before.output + 2 * OPENAI_USAGE.completion_tokens,
    );
  });

  it('never writes the upstream key into a log line or an error body, failures included', async () => {
    t.fake.mode = { kind: 'status', status: 500 };
    const failed = await chat(`${t.proxy.base}/openai/chat/completions`, {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(failed.status).toBe(500);
    expect(failed.text).not.toContain(KEY);
    t.proxy.advance(120_000);
    const backoff = await chat(`${t.proxy.base}/openai/chat/completions`, {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(backoff.text).not.toContain(KEY);
    expect(t.proxy.logs.length).toBeGreaterThan(0);
    expect(t.proxy.logs.some((l) => l.includes('LLM provider failed'))).toBe(true);
    for (const line of t.proxy.logs) expect(line).not.toContain(KEY);
  });
});
