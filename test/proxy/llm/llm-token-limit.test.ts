// `traffic.rateLimit.local[].tokens` on an LLM route: each answer's usage (input + output tokens, from the
// fake OpenAI provider's `usage`) counts against later requests, as the seed says. Without the charge the
// third request below would pass.
import { describe, expect, it } from 'vitest';
import { OPENAI_USAGE } from './fake-vendors.js';
import { GATEWAY, aiBackend, aiRoute, chat, useFakeAndProxy } from './llm-harness.js';

const PER_CALL = OPENAI_USAGE.prompt_tokens + OPENAI_USAGE.completion_tokens;

function manifests(port: number): string {
  return `${GATEWAY}
${aiBackend('openai', `openai: {}, host: 127.0.0.1, port: ${port}`)}---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: token-budget, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: metered}]
  traffic:
    rateLimit: {local: [{tokens: ${PER_CALL + 2}, unit: Hours}]}
${aiRoute('metered', '/metered', 'openai')}${aiRoute('free', '/free', 'openai')}`;
}

const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] };

describe('token rate limits on LLM routes', () => {
  const t = useFakeAndProxy('openai', manifests);

  it('admits while tokens are left, counts each answer afterwards, and answers 429 once they are spent', async () => {
    // Budget 20: the first answer (18) leaves 2, the second is admitted and leaves a debt of 16.
    expect((await chat(`${t.proxy.base}/metered/v1/chat/completions`, body)).status).toBe(200);
    expect((await chat(`${t.proxy.base}/metered/v1/chat/completions`, body)).status).toBe(200);
    const refused = await chat(`${t.proxy.base}/metered/v1/chat/completions`, body);
    expect(refused.status).toBe(429);
    expect(refused.json()).toMatchObject({ error: { code: 'rate_limited' } });
    // 17 tokens at 20 per hour: about 51 minutes.
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect(t.fake.received).toHaveLength(2);
    // Another route's traffic is not counted.
    expect((await chat(`${t.proxy.base}/free/v1/chat/completions`, body)).status).toBe(200);
    // The debt is refilled with time.
    t.proxy.advance(60 * 60 * 1000);
    expect((await chat(`${t.proxy.base}/metered/v1/chat/completions`, body)).status).toBe(200);
  });
});
