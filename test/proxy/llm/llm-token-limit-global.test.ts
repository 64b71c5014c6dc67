// `traffic.rateLimit.global` with `unit: Tokens` on an LLM route, against envoyproxy/ratelimit on Redis: the
// request is checked (hits_addend 0) before it is sent, and each answer's input + output tokens (the fake
// OpenAI provider's `usage`) are charged after it as hits_addend, so the shared budget runs out for every
// replica. Without the charge Redis would hold no tokens and the fourth request would pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../system/harness.js';
import { RateLimitService } from '../ratelimit-service.js';
import { OPENAI_USAGE } from './fake-vendors.js';
import { GATEWAY, aiBackend, aiRoute, chat, useFakeAndProxy } from './llm-harness.js';

const PER_CALL = OPENAI_USAGE.prompt_tokens + OPENAI_USAGE.completion_tokens;
/** Two answers fit, the third is admitted on what is left, and its charge spends the budget. */
const BUDGET = 2 * PER_CALL + 1;

// Year windows and a 10 s timeout: see rate-limit-global.test.ts (a window reset or a slow answer mid-test).
let service: RateLimitService;
beforeAll(async () => {
  service = await RateLimitService.start(`domain: llm
descriptors:
  - {key: team, rate_limit: {unit: year, requests_per_unit: ${BUDGET}}}
  - {key: model, rate_limit: {unit: year, requests_per_unit: 2}}
`);
});
afterAll(async () => {
  await service?.stop();
});

function manifests(port: number): string {
  return `${GATEWAY}
${aiBackend('openai', `openai: {}, host: 127.0.0.1, port: ${port}`)}---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: team-budget, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: metered}]
  traffic:
    rateLimit:
      global:
        url: grpc://127.0.0.1:${service.grpcPort}
        domain: llm
        timeout: 10s
        descriptors: [{unit: Tokens, entries: [{name: team, expression: 'request.headers["x-team"]'}]}]
${aiRoute('metered', '/metered', 'openai')}---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: model-budget, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: per-model}]
  traffic:
    rateLimit:
      global:
        url: grpc://127.0.0.1:${service.grpcPort}
        domain: llm
        timeout: 10s
        descriptors: [{entries: [{name: model, expression: llmRequest.model}]}]
${aiRoute('per-model', '/per-model', 'openai')}`;
}

const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] };

describe('global token limits on LLM routes', () => {
  const t = useFakeAndProxy('openai', (port) => manifests(port));
  const spent = () => service.counters('team_red').reduce((a, b) => a + b, 0);
  const call = (team: string) => chat(`${t.proxy.base}/metered/v1/chat/completions`, body, { 'x-team': team });

  it("charges each answer's tokens to the shared service after it, and refuses once the team's budget is spent", async () => {
    expect((await call('red')).status).toBe(200);
    await waitFor('the first charge', () => spent() === PER_CALL);
    expect((await call('red')).status).toBe(200);
    await waitFor('the second charge', () => spent() === 2 * PER_CALL);
    // Checked before it is sent (one token is left), charged after it: the debt refuses the next one.
    expect((await call('red')).status).toBe(200);
    await waitFor('the third charge', () => spent() === 3 * PER_CALL);
    const refused = await call('red');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(t.fake.received).toHaveLength(3);
    // Another team's budget is its own.
    expect((await call('blue')).status).toBe(200);
  });

  it('keys a request limit by the model the body asks for, read once the LLM forwarder has the body', async () => {
    const ask = (model: string) =>
      chat(`${t.proxy.base}/per-model/v1/chat/completions`, { ...body, model }, { 'x-team': 'green' });
    const before = t.fake.received.length;
    expect((await ask('gpt-4o')).status).toBe(200);
    expect((await ask('gpt-4o')).status).toBe(200);
    const refused = await ask('gpt-4o');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('2');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The other model's budget is its own: without the entry both would share none and all would pass.
    expect((await ask('gpt-4o-mini')).status).toBe(200);
    expect(t.fake.received.length - before).toBe(3);
    expect(service.counters('model_gpt-4o-mini')).toEqual([1]);
  });
});
