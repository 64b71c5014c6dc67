// The proxy's batched counters (src/proxy/metrics.ts): a child counts in a plain number that a scrape adds
// to the series. What a scrape shows must be what prom-client's own counter would have shown.
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/proxy/metrics.js';

const labels = { provider: 'p', model: 'm', kind: 'input' };

describe('batched counters', () => {
  it('show each count once across scrapes, and a child counted at 0 as a series at 0', async () => {
    const m = createMetrics();
    const tokens = m.llmTokens.child('p m input', labels);
    tokens.inc(2);
    tokens.inc(3);
    expect(await m.registry.getSingleMetricAsString('gw_llm_tokens_total')).toContain(
      'gw_llm_tokens_total{provider="p",model="m",kind="input"} 5',
    );
    tokens.inc(1);
    expect(await m.registry.getSingleMetricAsString('gw_llm_tokens_total')).toContain('kind="input"} 6');
    m.llmCost.child('p m input', labels).inc(0);
    expect(await m.registry.getSingleMetricAsString('gw_llm_cost_usd_total')).toContain(
      'gw_llm_cost_usd_total{provider="p",model="m",kind="input"} 0',
    );
  });

  it('keeps the exposition working when a sum passes the largest double', async () => {
    const m = createMetrics();
    const tokens = m.llmTokens.child('p m input', labels);
    tokens.inc(1e308);
    tokens.inc(1e308);
    await expect(m.registry.metrics()).resolves.toContain('gw_llm_tokens_total{provider="p",model="m",kind="input"}');
    tokens.inc(1);
    await expect(m.registry.metrics()).resolves.toContain(
      'gw_llm_tokens_total{provider="p",model="m",kind="input"} +Inf',
    );
  });

  it('refuses a negative or non-finite increase at the call, as prom-client does', () => {
    const child = createMetrics().llmTokens.child('k', labels);
    expect(() => child.inc(-1)).toThrow(TypeError);
    expect(() => child.inc(Number.NaN)).toThrow(TypeError);
  });
});
