// GwModel routing on an HTTPRoute rule that uses the GwModel backend `*`: the request's model picks a
// Public GwModel (exact, prefix, virtual failover / conditional), against loopback fakes of the OpenAI
// and Anthropic APIs (fake-vendors.ts). Credentials come inline or from Secrets the translator resolves.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeVendor, type FakeVendor } from './fake-vendors.js';
import { GATEWAY, chat, counter, gwModel, modelRoute, secret, startLlmProxy, type LlmProxy } from './llm-harness.js';

const KEY_A = 'sk-model-a-SECRET';
const KEY_C = 'sk-model-c-SECRET';
const KEY_VAULT = 'sk-from-the-vault-SECRET';
const body = (model: string) => ({ model, messages: [{ role: 'user', content: 'Hi' }] });

describe('GwModel routing', () => {
  let a: FakeVendor, c: FakeVendor;
  let proxy: LlmProxy;

  beforeAll(async () => {
    [a, c] = await Promise.all([startFakeVendor('openai'), startFakeVendor('anthropic')]);
    const openai = `  provider: OpenAI\n  baseURL: http://127.0.0.1:${a.port}/v1\n  policies: {auth: {key: ${KEY_A}}}`;
    const anthropic = `  provider: Anthropic\n  baseURL: http://127.0.0.1:${c.port}/v1\n  policies: {auth: {key: ${KEY_C}}}`;
    const vault = (ref: string) =>
      `  provider: OpenAI\n  baseURL: http://127.0.0.1:${a.port}/v1\n  policies: {auth: {secretRef: ${ref}}}`;
    proxy = await startLlmProxy(
      `${GATEWAY}${secret('openai-key', { Authorization: KEY_VAULT })}${modelRoute('llm', '/v1')}${gwModel('gpt-4o', openai)}${gwModel('claude', `  match: {model: claude-*}\n${anthropic}`)}${gwModel('mistral-small', `  provider: Mistral\n  baseURL: http://127.0.0.1:${a.port}/mistral/v1`)}${gwModel('internal-a', `  visibility: Internal\n${openai}`)}${gwModel('internal-c', `  visibility: Internal\n${anthropic}`)}${gwModel(
        'smart',
        `  virtualModel:
    failover:
      targets:
      - {modelRef: {name: internal-a}, model: a-large, priority: 0}
      - {modelRef: {name: internal-c}, model: c-large, priority: 10}`,
      )}${gwModel(
        'tiered',
        `  virtualModel:
    conditional:
      targets:
      - {modelRef: {name: internal-c}, model: c-gold, when: "request.headers['x-tier'] == 'gold'"}
      - {modelRef: {name: internal-a}, model: a-basic}`,
      )}${gwModel('vault', vault('{name: openai-key}'))}${gwModel('vault-no-secret', vault('{name: no-such-secret}'))}${gwModel('vault-no-key', vault('{name: openai-key, key: absent}'))}${gwModel(
        'careful',
        `  virtualModel:
    failover:
      targets:
      - {modelRef: {name: vault-no-secret}, model: a-large, priority: 0}
      - {modelRef: {name: internal-c}, model: c-large, priority: 10}`,
      )}${gwModel('headed', `  provider: OpenAI\n  baseURL: http://127.0.0.1:${a.port}/v1\n  policies: {auth: {key: ${KEY_A}}, headers: {set: [{name: X-Team, value: blue}, {name: Authorization, value: forged}], add: [{name: X-Tags, value: gw}], remove: [X-Internal]}}`)}${gwModel('guarded', `  provider: OpenAI\n  baseURL: http://127.0.0.1:${a.port}/v1\n  policies: {auth: {key: ${KEY_A}}, promptGuard: {request: [{regex: {builtins: [Ssn]}}]}}`)}${gwModel(
        'tagged',
        `  provider: Custom
  baseURL: http://127.0.0.1:${a.port}/v1
  custom: {providerOverride: vllm-lab, model: upstream-x, formats: [{format: Completions}]}
  policies: {auth: {key: ${KEY_A}}}`,
      )}`,
    );
  });
  afterAll(async () => {
    await proxy?.close();
    await Promise.all([a?.close(), c?.close()]);
  });
  beforeEach(() => {
    for (const f of [a, c]) {
      f.received.length = 0;
      f.mode = { kind: 'ok' };
    }
    proxy.advance(120_000);
  });

  it('sends an exactly matching model to its provider with its key', async () => {
    const res = await chat(`${proxy.base}/v1/chat/completions`, body('gpt-4o'));
    expect(res.status).toBe(200);
    expect(a.received[0]).toMatchObject({
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${KEY_A}` },
      body: { model: 'gpt-4o' },
    });
  });

  it("changes the headers sent to a GwModel's provider by its policies.headers, and keeps its credential on top", async () => {
    const res = await chat(`${proxy.base}/v1/chat/completions`, body('headed'), {
      'x-internal': 'not for vendors',
      'x-tags': 'client',
    });
    expect(res.status).toBe(200);
    const sent = a.received[0]?.headers ?? {};
    expect(sent['x-team']).toBe('blue');
    expect(sent['x-tags']).toBe('client,gw');
    expect(sent['x-internal']).toBeUndefined();
    expect(sent.authorization).toBe(`Bearer ${KEY_A}`);
  });

  it('sends a prefix match to Anthropic, converted, with the requested model name', async () => {
    const res = await chat(`${proxy.base}/v1/chat/completions`, body('claude-3-haiku'));
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'Hello' } }] });
    expect(c.received[0]).toMatchObject({
      path: '/v1/messages',
      headers: { 'x-api-key': KEY_C },
      body: { model: 'claude-3-haiku', max_tokens: 4096 },
    });
  });

  it('calls an OpenAI-compatible provider at its base URL', async () => {
    expect((await chat(`${proxy.base}/v1/chat/completions`, body('mistral-small'))).status).toBe(200);
    expect(a.received[0]?.path).toBe('/mistral/v1/chat/completions');
  });

  it('answers 404 model_not_found for an unknown model and for an Internal model asked for directly, and 400 without a model', async () => {
    for (const model of ['nope', 'internal-a']) {
      const res = await chat(`${proxy.base}/v1/chat/completions`, body(model));
      expect(res.status).toBe(404);
      expect(res.json()).toMatchObject({ error: { code: 'model_not_found' } });
    }
    const none = await chat(`${proxy.base}/v1/chat/completions`, { messages: [{ role: 'user', content: 'Hi' }] });
    expect(none.status).toBe(400);
    expect(a.received.length + c.received.length).toBe(0);
  });

  it('fails a virtual model over to the next priority with the target model name', async () => {
    expect((await chat(`${proxy.base}/v1/chat/completions`, body('smart'))).status).toBe(200);
    expect(a.received[0]?.body.model).toBe('a-large');
    a.mode = { kind: 'status', status: 503 };
    const res = await chat(`${proxy.base}/v1/chat/completions`, body('smart'));
    expect(res.status).toBe(200);
    expect(c.received[0]?.body.model).toBe('c-large');
  });

  it('routes a conditional virtual model by CEL on the request, with the fallback last', async () => {
    expect((await chat(`${proxy.base}/v1/chat/completions`, body('tiered'), { 'x-tier': 'gold' })).status).toBe(200);
    expect((await chat(`${proxy.base}/v1/chat/completions`, body('tiered'))).status).toBe(200);
    expect(c.received.map((r) => r.body.model)).toEqual(['c-gold']);
    expect(a.received.map((r) => r.body.model)).toEqual(['a-basic']);
  });

  it('sends a model whose credential is a Secret reference with the key from the Secret', async () => {
    const res = await chat(`${proxy.base}/v1/chat/completions`, body('vault'));
    expect(res.status).toBe(200);
    expect(a.received[0]).toMatchObject({
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${KEY_VAULT}` },
      body: { model: 'vault' },
    });
  });

  it('refuses with 500 a model whose Secret or Secret key is missing, without calling the vendor keyless', async () => {
    for (const model of ['vault-no-secret', 'vault-no-key']) {
      const res = await chat(`${proxy.base}/v1/chat/completions`, body(model));
      expect(res.status).toBe(500);
      expect(res.json()).toMatchObject({
        error: { code: 'credential_missing', message: expect.stringContaining('policies.auth.secretRef') },
      });
      expect(res.text).not.toContain(KEY_VAULT);
    }
    expect(a.received).toEqual([]);
  });

  it('fails a virtual model over past a target whose Secret is missing', async () => {
    const res = await chat(`${proxy.base}/v1/chat/completions`, body('careful'));
    expect(res.status).toBe(200);
    expect(a.received).toEqual([]);
    expect(c.received[0]).toMatchObject({ headers: { 'x-api-key': KEY_C }, body: { model: 'c-large' } });
  });

  it("applies a model's prompt guard (llm-model-prompt-guard.test.ts has every kind) instead of serving it unguarded", async () => {
    const res = await chat(`${proxy.base}/v1/chat/completions`, {
      model: 'guarded',
      messages: [{ role: 'user', content: 'ssn 123-45-6789' }],
    });
    expect(res.status).toBe(403);
    expect(a.received).toEqual([]);
    expect((await chat(`${proxy.base}/v1/chat/completions`, body('guarded'))).status).toBe(200);
  });

  it('sends custom.model upstream and labels request and token metrics with custom.providerOverride instead of the model name', async () => {
    const labels = { provider: 'vllm-lab', model: 'upstream-x' };
    const res = await chat(`${proxy.base}/v1/chat/completions`, body('tagged'));
    expect(res.status).toBe(200);
    expect(a.received[0]).toMatchObject({
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${KEY_A}` },
      body: { model: 'upstream-x' },
    });
    expect(await counter(proxy.runtime, 'gw_llm_requests_total', { ...labels, status: '200' })).toBe(1);
    expect(await counter(proxy.runtime, 'gw_llm_tokens_total', { ...labels, kind: 'input' })).toBeGreaterThan(0);
    expect(
      await counter(proxy.runtime, 'gw_llm_requests_total', {
        provider: 'GwModel/default/tagged',
        model: 'upstream-x',
        status: '200',
      }),
    ).toBe(0);
  });

  it('lists the Public models with exact names on GET /v1/models', async () => {
    const res = await fetch(`${proxy.base}/v1/models`);
    expect(res.status).toBe(200);
    const ids = ((await res.json()) as { data: { id: string }[] }).data.map((m) => m.id).sort();
    expect(ids).toEqual([
      'careful',
      'gpt-4o',
      'guarded',
      'headed',
      'mistral-small',
      'smart',
      'tagged',
      'tiered',
      'vault',
      'vault-no-key',
      'vault-no-secret',
    ]);
  });

  it('never writes a key to the logs', () => {
    expect(proxy.logs.length).toBeGreaterThan(0);
    for (const line of proxy.logs) for (const k of [KEY_A, KEY_C, KEY_VAULT]) expect(line).not.toContain(k);
  });
});
