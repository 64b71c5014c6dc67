// GwModel `policies.promptGuard` through the real translator and the runtime's built-in guards (the same
// src/proxy/guard code as GwPolicy backend.ai.promptGuard): request and response steps, customResponse,
// `streaming: Buffered`, the seed 000 reference webhook for real on loopback, a loopback fake of the OpenAI
// API upstream (an LLM vendor cannot run here), and a guard whose webhook does not resolve (503, status).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { webhookBackend } from '../guard/guard-harness.js';
import { startReferenceWebhook, type ReferenceWebhook } from '../guard/reference-webhook.js';
import { startFakeVendor, type FakeVendor } from './fake-vendors.js';
import { GATEWAY, chat, counter, gwModel, modelRoute, sseData, startLlmProxy, type LlmProxy } from './llm-harness.js';
import { parseManifests } from '../../../src/controller/local/manifests.js';
import { translateAll } from '../../../src/translate/state.js';
import { createStore, putObject } from '../../../src/translate/objects/store.js';

const user = (content: string) => [{ role: 'user', content }];

type Condition = { type: string; status: string; reason: string; message: string };

/** The ResolvedRefs condition the controller writes on GwModel default/`name` for these manifests. */
function resolvedRefs(manifests: string, name: string): Condition | undefined {
  const store = createStore();
  for (const { kind, obj } of parseManifests(manifests, 'test.yaml').objects) putObject(store, kind, obj, 'test.yaml');
  const state = translateAll(store, {
    controllerName: 'gw.dev/gateway-controller',
    now: '2026-01-01T00:00:00Z',
    enableModels: true,
  });
  const status = state.statuses.get(`GwModel/default/${name}`) as
    { parents?: { conditions: Condition[] }[] } | undefined;
  return status?.parents?.[0]?.conditions.find((c) => c.type === 'ResolvedRefs');
}

function manifests(fake: number, hook: number): string {
  const base = `  provider: OpenAI\n  baseURL: http://127.0.0.1:${fake}/v1`;
  const webhook = `{backendRef: {group: gw.dev, kind: GwBackend, name: webhook, port: ${hook}}}`;
  return `${GATEWAY}${webhookBackend(hook)}${modelRoute('llm', '/v1')}${gwModel(
    'masked',
    `${base}
  policies:
    promptGuard:
      request:
      - regex: {builtins: [Ssn], action: Mask}
      - webhook: ${webhook}
      response:
      - regex: {matches: [{name: secret-word, pattern: 'classified'}], action: Reject}
        customResponse: {statusCode: 451, message: answer withheld}`,
  )}${gwModel(
    'rejecting',
    `${base}
  policies:
    promptGuard:
      request:
      - regex: {builtins: [Email]}
        customResponse: {statusCode: 422, message: no e-mail addresses please}`,
  )}${gwModel(
    'buffered',
    `${base}
  policies:
    promptGuard:
      streaming: Buffered
      response:
      - regex: {builtins: [Ssn], action: Mask}`,
  )}${gwModel(
    'dangling',
    `${base}
  policies:
    promptGuard:
      request:
      - webhook: {backendRef: {group: gw.dev, kind: GwBackend, name: missing-hook, port: 1}}`,
  )}${gwModel('unguarded', base)}${gwModel(
    'tiered',
    `  virtualModel: {failover: {targets: [{modelRef: {name: rejecting}, priority: 0}]}}`,
  )}`;
}

describe('GwModel policies.promptGuard', () => {
  let fake: FakeVendor, hook: ReferenceWebhook, proxy: LlmProxy;

  beforeAll(async () => {
    [fake, hook] = await Promise.all([startFakeVendor('openai'), startReferenceWebhook()]);
    proxy = await startLlmProxy(manifests(fake.port, hook.port));
  });
  afterAll(async () => {
    await proxy?.close();
    await Promise.all([fake?.close(), hook?.close()]);
  });
  beforeEach(() => {
    fake.received.length = 0;
    fake.mode = { kind: 'ok' };
    hook.calls.length = 0;
  });

  it('masks an SSN before the webhook and the provider see the prompt', async () => {
    const res = await chat(`${proxy.base}/v1/chat/completions`, { model: 'masked', messages: user('ssn 123-45-6789') });
    expect(res.status).toBe(200);
    const sent = JSON.stringify(fake.received[0]?.body.messages);
    expect(sent).not.toContain('123-45-6789');
    expect(sent).toContain('<SSN>');
    expect(JSON.stringify(hook.calls.find((c) => c.path === '/request')?.body)).toContain('<SSN>');
  });

  it("answers the webhook's rejection and never calls the provider", async () => {
    const res = await chat(`${proxy.base}/v1/chat/completions`, {
      model: 'masked',
      messages: user('please block this'),
    });
    expect(res.status).toBe(403);
    expect(res.text).toBe('request blocked');
    expect(fake.received).toEqual([]);
  });

  it("rejects a buffered answer with the response step's customResponse", async () => {
    fake.mode = { kind: 'ok', content: 'this is classified' };
    const before = await counter(proxy.runtime, 'gw_llm_guard_verdicts_total', {
      phase: 'response',
      verdict: 'reject',
    });
    const res = await chat(`${proxy.base}/v1/chat/completions`, { model: 'masked', messages: user('hi') });
    expect(res.status).toBe(451);
    expect(res.text).toContain('answer withheld');
    expect(res.text).not.toContain('classified');
    expect(await counter(proxy.runtime, 'gw_llm_guard_verdicts_total', { phase: 'response', verdict: 'reject' })).toBe(
      before + 1,
    );
  });

  it("answers a request step's customResponse, also when a virtual model sends the request to the guarded one", async () => {
    for (const model of ['rejecting', 'tiered']) {
      const res = await chat(`${proxy.base}/v1/chat/completions`, { model, messages: user('mail me: a@b.example') });
      expect(res.status).toBe(422);
      expect(res.text).toContain('no e-mail addresses please');
    }
    expect(fake.received).toEqual([]);
    const ok = await chat(`${proxy.base}/v1/chat/completions`, { model: 'tiered', messages: user('hello') });
    expect(ok.status).toBe(200);
  });

  it('masks a buffered answer, and a streamed one too when streaming is Buffered', async () => {
    fake.mode = { kind: 'ok', content: 'yours is 123-45-6789' };
    const res = await chat(`${proxy.base}/v1/chat/completions`, { model: 'buffered', messages: user('hi') });
    expect(res.json()).toMatchObject({ choices: [{ message: { content: 'yours is <SSN>' } }] });
    fake.received.length = 0;
    const streamed = await chat(`${proxy.base}/v1/chat/completions`, {
      model: 'buffered',
      stream: true,
      messages: user('hi'),
    });
    expect(streamed.status).toBe(200);
    expect(streamed.text).toContain('yours is <SSN>');
    expect(streamed.text).not.toContain('6789');
    expect(sseData(streamed.text).at(-1)).toBe('[DONE]');
  });

  it('refuses with 503 a model whose webhook guard does not resolve, and says so on its status', async () => {
    const res = await chat(`${proxy.base}/v1/chat/completions`, { model: 'dangling', messages: user('hi') });
    expect(res.status).toBe(503);
    expect(res.text).toContain('guard_not_enforced');
    expect(fake.received).toEqual([]);
    const resolved = resolvedRefs(manifests(fake.port, hook.port), 'dangling');
    expect(resolved).toMatchObject({ status: 'False', reason: 'BackendNotFound' });
    expect(resolved?.message).toContain('spec.policies.promptGuard.request[0]');
  });

  it('leaves a model without promptGuard unguarded', async () => {
    const res = await chat(`${proxy.base}/v1/chat/completions`, {
      model: 'unguarded',
      messages: user('ssn 123-45-6789'),
    });
    expect(res.status).toBe(200);
    expect(JSON.stringify(fake.received[0]?.body.messages)).toContain('123-45-6789');
  });
});
