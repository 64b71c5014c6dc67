// The passive health detector on its own (src/proxy/policy/outlier.ts), with a clock the test moves: the
// parts the end-to-end tests (passive-health.test.ts, llm/llm-health.test.ts) do not reach.
import { describe, expect, it } from 'vitest';
import { OutlierDetector, retryAfterMs, type OutlierSettings } from '../../src/proxy/policy/outlier.js';

const settings: OutlierSettings = {
  consecutiveFailures: 1,
  baseEjectionMs: 100_000,
  maxEjectionMs: 300_000,
  maxEjectionPercent: 50,
};

describe('OutlierDetector', () => {
  it('caps the doubling backoff at maxEjectionMs', () => {
    let now = 0;
    const d = new OutlierDetector(() => now);
    const pool = ['a', 'b'];
    const lengths: number[] = [];
    for (let i = 0; i < 4; i++) {
      expect(d.failed('p', 'a', settings, pool)).toBe(true);
      lengths.push(d.until('p', 'a') - now);
      now = d.until('p', 'a');
    }
    expect(lengths).toEqual([100_000, 200_000, 300_000, 300_000]);
  });

  it('never ejects with maxEjectionPercent 0, and counts only the members it is given', () => {
    const d = new OutlierDetector(() => 0);
    expect(d.failed('p', 'a', { ...settings, maxEjectionPercent: 0 }, ['a', 'b'])).toBe(false);
    expect(d.failed('q', 'a', settings, ['a', 'b'])).toBe(true);
    // b shares the pool but another virtual model's targets are {b, c}: a is not among them.
    expect(d.failed('q', 'b', settings, ['b', 'c'])).toBe(true);
    expect(d.failed('q', 'c', settings, ['b', 'c'])).toBe(false);
  });

  it('a success during an ejection (a panic probe) brings the member back', () => {
    const d = new OutlierDetector(() => 0);
    d.failed('p', 'a', settings, ['a', 'b']);
    expect(d.isEjected('p', 'a')).toBe(true);
    d.succeeded('p', 'a', 5);
    expect(d.isEjected('p', 'a')).toBe(false);
    expect(d.latencyMs('p', 'a')).toBe(5);
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP-dates, and ignores what it cannot read', () => {
    const now = Date.parse('2026-11-29T07:00:00Z');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Sun, 29 Nov 2026 07:01:30 GMT', now)).toBe(90_000);
    expect(retryAfterMs('Sun, 29 Nov 2026 06:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBe(0);
    expect(retryAfterMs(undefined, now)).toBe(0);
  });
});
