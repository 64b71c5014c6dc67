// The model catalog through a real listener (docs/llm-providers.md "Model catalog"): `/v1/models` answered from the
// catalog with the models each route can reach, the cost of an answer in gw_llm_cost_usd_total, and CEL
// `llm.model.*` in a GwModel's authorization rules and in an AI transformation, against a loopback fake of
// the OpenAI API; a `..data` swap of the mounted file changes what is listed without a restart.
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configMapVolume, type ConfigMapVolume } from '../../support/configmap-volume.js';
import { OPENAI_USAGE, startFakeVendor, type FakeVendor } from './fake-vendors.js';
import {
  GATEWAY,
  aiBackend,
  aiRoute,
  chat,
  counter,
  gwModel,
  modelRoute,
  startLlmProxy,
  type LlmProxy,
} from './llm-harness.js';

const catalog = (extra: object[] = []) =>
  JSON.stringify({
    models: [
      { name: 'gpt-4o', provider: 'OpenAI', contextWindow: 128000, inputCostPerMillion: 2.5, outputCostPerMillion: 10 },
      {
        name: 'gpt-4.5',
        provider: 'OpenAI',
        contextWindow: 128000,
        inputCostPerMillion: 75,
        outputCostPerMillion: 150,
      },
      { name: 'claude-sonnet-4', provider: 'Anthropic', contextWindow: 200000, inputCostPerMillion: 3 },
      ...extra,
    ],
  });

const body = (model: string) => ({ model, messages: [{ role: 'user', content: 'Hi' }] });

describe('model catalog on LLM routes', () => {
  let vendor: FakeVendor;
  let proxy: LlmProxy;
  let volume: ConfigMapVolume;

  beforeAll(async () => {
    vendor = await startFakeVendor('openai');
    volume = configMapVolume('catalog.json', catalog());
    const provider = `  provider: OpenAI\n  baseURL: http://127.0.0.1:${vendor.port}/v1\n  policies: {auth: {key: sk-x}`;
    const cheapOnly = `, authorization: {action: Allow, policy: {matchExpressions: ['llm.model.inputCostPerMillion <= 10.0']}}}`;
    proxy = await startLlmProxy(
      `${GATEWAY}${aiBackend('openai', `openai: {}, host: 127.0.0.1, port: ${vendor.port}`, `{auth: {key: sk-x}}`)}---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: openai-ai, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: openai}]
  backend:
    ai:
      routes: {/v1/models: Models, /v1/embeddings: Embeddings}
      transformations: [{field: user, expression: '"window-" + string(llm.model.contextWindow)'}]
${aiRoute('direct', '/direct', 'openai')}${modelRoute('llm', '/v1')}${gwModel('gpt', `  match: {model: gpt-*}\n${provider}${cheapOnly}`)}`,
      { modelCatalogFiles: [volume.file] },
    );
  });
  afterAll(async () => {
    await proxy?.close();
    await vendor?.close();
    volume?.remove();
  });

  const models = async (path: string) => {
    const res = await fetch(`${proxy.base}${path}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { id: string; owned_by: string; context_window?: number }[] }).data;
  };

  it("lists the catalog's models a provider route can reach, in the OpenAI list format, without asking the vendor", async () => {
    vendor.received.length = 0;
    expect(await models('/direct/v1/models')).toEqual([
      { id: 'gpt-4.5', object: 'model', created: 0, owned_by: 'OpenAI', context_window: 128000 },
      { id: 'gpt-4o', object: 'model', created: 0, owned_by: 'OpenAI', context_window: 128000 },
    ]);
    expect(vendor.received).toHaveLength(0);
  });

  it('lists on a GwModel route the catalog entries a public model answers to and can call', async () => {
    expect((await models('/v1/models')).map((m) => m.id)).toEqual(['gpt-4.5', 'gpt-4o']);
  });

  it('counts the cost of an answer by the catalog prices', async () => {
    const res = await chat(`${proxy.base}/direct/v1/chat/completions`, body('gpt-4o'));
    expect(res.status).toBe(200);
    const labels = { provider: 'openai', model: 'gpt-4o' };
    expect(await counter(proxy.runtime, 'gw_llm_cost_usd_total', { ...labels, kind: 'input' })).toBeCloseTo(
      (OPENAI_USAGE.prompt_tokens * 2.5) / 1e6,
      12,
    );
    expect(await counter(proxy.runtime, 'gw_llm_cost_usd_total', { ...labels, kind: 'output' })).toBeCloseTo(
      (OPENAI_USAGE.completion_tokens * 10) / 1e6,
      12,
    );
  });

  it("gives AI transformations the model's catalog entry as llm.model", async () => {
    vendor.received.length = 0;
    const res = await chat(`${proxy.base}/direct/v1/chat/completions`, body('gpt-4o'));
    expect(res.status).toBe(200);
    expect(vendor.received[0]?.body).toMatchObject({ model: 'gpt-4o', user: 'window-128000' });
    const embeddings = await chat(`${proxy.base}/direct/v1/embeddings`, { model: 'gpt-4.5', input: 'x' });
    expect(embeddings.status).toBe(200);
    expect(vendor.received[1]?.body).toEqual({ model: 'gpt-4.5', input: 'x', user: 'window-128000' });
  });

  it("lets a GwModel's authorization rule allow only models the catalog prices low enough", async () => {
    vendor.received.length = 0;
    expect((await chat(`${proxy.base}/v1/chat/completions`, body('gpt-4o'))).status).toBe(200);
    const denied = await chat(`${proxy.base}/v1/chat/completions`, body('gpt-4.5'));
    expect(denied.status).toBe(403);
    // A model the catalog does not price is not allowed by a rule on its price.
    expect((await chat(`${proxy.base}/v1/chat/completions`, body('gpt-unlisted'))).status).toBe(403);
    expect(vendor.received.map((r) => (r.body as { model: string }).model)).toEqual(['gpt-4o']);
  });

  it('serves a new catalog after the mounted ..data symlink is swapped, and keeps it when the next one is bad', async () => {
    const store = proxy.runtime.modelCatalog;
    if (!store) throw new Error('the runtime has no catalog store');
    let reloaded = once(store, 'reload');
    volume.swap(catalog([{ name: 'gpt-5', provider: 'OpenAI', contextWindow: 400000 }]));
    expect(await reloaded).toEqual(['applied']);
    expect((await models('/direct/v1/models')).map((m) => m.id)).toEqual(['gpt-4.5', 'gpt-4o', 'gpt-5']);

    reloaded = once(store, 'reload');
    volume.swap('{"models": [{"name": "gpt-6", "provider": "OpenAI", "contextWindow": -1}]}');
    expect(await reloaded).toEqual(['rejected']);
    expect((await models('/direct/v1/models')).map((m) => m.id)).toEqual(['gpt-4.5', 'gpt-4o', 'gpt-5']);
    expect(await counter(proxy.runtime, 'gw_model_catalog_reloads_total', { result: 'rejected' })).toBe(1);
    expect(proxy.logs.join('')).toContain('models[0] (gpt-6).contextWindow: must be a positive integer, got -1');
  });
});
