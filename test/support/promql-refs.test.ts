// The query reader and the exposition reader must see what they claim to, or the dashboard tests that
// use them prove nothing.
import { describe, expect, it } from 'vitest';
import { exposedFamilies, isExposed } from './exposition.js';
import { promqlRefs } from './promql-refs.js';

describe('promqlRefs', () => {
  it('reads the metric of a histogram quantile, not its functions, grouping label, numbers or variables', () => {
    expect(
      promqlRefs(
        'histogram_quantile(0.95, sum by (le) (rate(gw_http_request_duration_seconds_bucket{namespace=~"$namespace"}[$__rate_interval])))',
      ),
    ).toEqual({
      selectors: [{ metric: 'gw_http_request_duration_seconds_bucket', labels: ['namespace'] }],
      grouping: ['le'],
    });
  });

  it('reads both sides of a binary expression and skips scientific numbers', () => {
    const refs = promqlRefs(
      'sum(rate(a_total{status=~"5.."}[5m])) / clamp_min(sum without (pod) (rate(b_total[1h30m])), 1e-9)',
    );
    expect(refs.selectors).toEqual([
      { metric: 'a_total', labels: ['status'] },
      { metric: 'b_total', labels: [] },
    ]);
    expect(refs.grouping).toEqual(['pod']);
  });

  it('reads a bare metric, a __name__ selector and vector matching labels', () => {
    const refs = promqlRefs('up * on (instance) group_left (version) {__name__="build_info", job!="x"} offset 5m');
    expect(refs.selectors).toEqual([
      { metric: 'up', labels: [] },
      { metric: 'build_info', labels: ['job'] },
    ]);
    expect(refs.grouping).toEqual(['instance', 'version']);
  });

  it('refuses text that is not PromQL instead of guessing', () => {
    expect(() => promqlRefs('sum(rate(x[5m])) ; drop')).toThrow(/cannot read PromQL at offset/);
  });
});

describe('exposedFamilies and isExposed', () => {
  const text = [
    '# HELP c_total A counter.',
    '# TYPE c_total counter',
    'c_total{a="1"} 2',
    '# HELP h_seconds A histogram.',
    '# TYPE h_seconds histogram',
    '# HELP s A summary.',
    '# TYPE s summary',
    '# HELP g A gauge with no TYPE line.',
  ].join('\n');
  const families = exposedFamilies(text);

  it('declares every family by its HELP or TYPE line', () => {
    expect([...families]).toEqual([
      ['c_total', 'counter'],
      ['h_seconds', 'histogram'],
      ['s', 'summary'],
      ['g', 'untyped'],
    ]);
  });

  it('accepts histogram and summary series and nothing invented', () => {
    expect(['h_seconds_bucket', 'h_seconds_count', 's_sum', 'c_total'].every((n) => isExposed(n, families))).toBe(true);
    expect(['s_bucket', 'c_total_count', 'c', 'missing_total'].some((n) => isExposed(n, families))).toBe(false);
  });
});
