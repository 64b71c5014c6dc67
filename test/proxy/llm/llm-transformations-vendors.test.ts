// AI `transformations` and `finalTransformations` for the vendors that speak the OpenAI wire format behind
// their own paths and credentials (Azure, Vertex AI, Gemini): the real translator and proxy against the
// loopback OpenAI FAKE (fake-vendors.ts) that records each body, buffered and streamed. OpenAI, Anthropic and
// Bedrock are in llm-transformations.test.ts.
import { describe, expect, it } from 'vitest';
import { GATEWAY, aiBackend, aiRoute, chat, sseData, useFakeAndProxy } from './llm-harness.js';

const cel = (s: string): string => JSON.stringify(s);
const lists = `ai: {overrides: [{field: user, value: override}], transformations: [{field: user, expression: ${cel("request.headers['x-tenant']")}}, {field: max_tokens, expression: ${cel('size(llmRequest.messages) * 10')}}], finalTransformations: [{field: seed, expression: '7'}]}`;

function manifests(port: number): string {
  const at = `host: 127.0.0.1, port: ${port}`;
  return `${GATEWAY}
${aiBackend('azure', `azure: {resourceName: res1, resourceType: OpenAI}, ${at}`, `{auth: {key: az-key}, ${lists}}`)}
${aiBackend('azure-dated', `azure: {resourceName: res1, resourceType: OpenAI, apiVersion: '2024-10-21'}, ${at}`, `{auth: {key: az-key}, ai: {transformations: [{field: model, expression: ${cel("'deploy-' + request.headers['x-tenant']")}}]}}`)}
${aiBackend('vertex', `vertexai: {projectId: proj, region: europe-west4}, ${at}`, `{auth: {key: vx-key}, ${lists}}`)}
${aiBackend('gemini', `gemini: {}, ${at}`, `{auth: {key: gm-key}, ${lists}}`)}
${aiRoute('azure', '/azure', 'azure')}${aiRoute('azure-dated', '/azure-dated', 'azure-dated')}${aiRoute('vertex', '/vertex', 'vertex')}${aiRoute('gemini', '/gemini', 'gemini')}`;
}

const PATHS: Record<string, string> = {
  azure: '/openai/v1/chat/completions',
  vertex: '/v1/projects/proj/locations/europe-west4/endpoints/openapi/chat/completions',
  gemini: '/v1beta/openai/chat/completions',
};

describe('AI field transformations on Azure, Vertex AI and Gemini', () => {
  const t = useFakeAndProxy('openai', manifests);

  for (const vendor of Object.keys(PATHS))
    for (const stream of [false, true])
      it(`applies transformations (over overrides) and finalTransformations for ${vendor}${stream ? ', streamed' : ''}`, async () => {
        const res = await chat(
          `${t.proxy.base}/${vendor}/v1/chat/completions`,
          {
            model: 'm-1',
            temperature: 0.5,
            ...(stream ? { stream: true } : {}),
            messages: [{ role: 'user', content: 'Hi' }],
          },
          { 'x-tenant': 'acme' },
        );
        expect(res.status).toBe(200);
        if (stream) expect(sseData(res.text).at(-1)).toBe('[DONE]');
        expect(t.fake.received).toHaveLength(1);
        expect(t.fake.received[0]?.path).toBe(PATHS[vendor]);
        expect(t.fake.received[0]?.body).toEqual({
          model: 'm-1',
          temperature: 0.5,
          ...(stream ? { stream: true } : {}),
          user: 'acme',
          max_tokens: 10,
          seed: 7,
          messages: [{ role: 'user', content: 'Hi' }],
        });
      });

  it('fails the request for Vertex when a transformation cannot be evaluated, and sends nothing', async () => {
    const res = await chat(`${t.proxy.base}/vertex/v1/chat/completions`, {
      model: 'm-1',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(res.status).toBe(500);
    expect(res.json()).toMatchObject({ error: { code: 'transformation_failed' } });
    expect(t.fake.received).toEqual([]);
  });

  it('addresses the Azure deployment named by the transformed model on a dated apiVersion', async () => {
    for (const stream of [false, true]) {
      const res = await chat(
        `${t.proxy.base}/azure-dated/chat/completions`,
        { model: 'gpt-4o', ...(stream ? { stream: true } : {}), messages: [{ role: 'user', content: 'Hi' }] },
        { 'x-tenant': 'acme' },
      );
      expect(res.status).toBe(200);
    }
    expect(t.fake.received.map((r) => [r.path, r.body.model])).toEqual([
      ['/openai/deployments/deploy-acme/chat/completions?api-version=2024-10-21', 'deploy-acme'],
      ['/openai/deployments/deploy-acme/chat/completions?api-version=2024-10-21', 'deploy-acme'],
    ]);
  });
});
