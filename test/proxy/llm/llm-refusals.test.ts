// `backend.ai` fields that used to be refused (transformations, promptCaching: issue 34) no longer refuse
// the edge; promptCaching on a provider that takes no breakpoints is named on status only (translate
// tests) and the request goes as it is; custom.providerOverride on a GwBackend provider, now typed,
// labels its metrics (issue 14). Against a loopback fake OpenAI.
import { describe, expect, it } from 'vitest';
import { GATEWAY, aiBackend, aiPolicy, aiRoute, chat, counter, useFakeAndProxy } from './llm-harness.js';

const policy = aiPolicy;

describe('backend.ai fields on LLM routes that were once refused', () => {
  const t = useFakeAndProxy(
    'openai',
    (port) =>
      `${GATEWAY}${aiBackend('plain', `openai: {}, host: 127.0.0.1, port: ${port}`)}${aiBackend('shaped', `openai: {}, host: 127.0.0.1, port: ${port}`)}${aiBackend('cached', `openai: {}, host: 127.0.0.1, port: ${port}`)}${aiBackend('lab', `custom: {providerOverride: vllm-lab, formats: [{format: Completions}]}, host: 127.0.0.1, port: ${port}`)}${aiRoute('lab', '/lab', 'lab')}${policy('shape', 'shaped', "{transformations: [{field: max_tokens, expression: '10'}]}")}${policy('cache', 'cached', '{promptCaching: {system: true}}')}${aiRoute('plain', '/plain', 'plain')}${aiRoute('shaped', '/shaped', 'shaped')}${aiRoute('cached', '/cached', 'cached')}`,
  );
  const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] };

  it('serves an edge without refused fields', async () => {
    expect((await chat(`${t.proxy.base}/plain/v1/chat/completions`, body)).status).toBe(200);
    expect(t.fake.received).toHaveLength(1);
  });

  it('serves an edge whose policy sets backend.ai.transformations, with the field set', async () => {
    const res = await chat(`${t.proxy.base}/shaped/v1/chat/completions`, body);
    expect(res.status).toBe(200);
    expect(t.fake.received[0]?.body).toEqual({ ...body, max_tokens: 10 });
  });

  it('serves an OpenAI provider with promptCaching unchanged (no breakpoints: its API takes none)', async () => {
    const res = await chat(`${t.proxy.base}/cached/v1/chat/completions`, body);
    expect(res.status).toBe(200);
    expect(t.fake.received[0]?.body).toEqual(body);
  });

  it("labels a GwBackend custom provider's metrics with custom.providerOverride", async () => {
    const res = await chat(`${t.proxy.base}/lab/v1/chat/completions`, body);
    expect(res.status).toBe(200);
    expect(
      await counter(t.proxy.runtime, 'gw_llm_requests_total', { provider: 'vllm-lab', model: 'gpt-4o', status: '200' }),
    ).toBe(1);
  });
});
