// Local rate limit buckets with an injected clock: no waiting, exact arithmetic.
import { describe, expect, it } from 'vitest';
import { RateLimits, RouteLimiter, TokenBucket } from '../../src/proxy/policy/rate-limit.js';
import { mayRetry, retryDelayMs } from '../../src/proxy/policy/retry.js';

describe('TokenBucket', () => {
  it('admits requests plus burst at once, then refuses until a token refills', () => {
    const limiter = new RouteLimiter([new TokenBucket({ requests: 2, intervalMs: 1000, burst: 1 }, 0)]);
    expect([limiter.admit(0), limiter.admit(0), limiter.admit(0)]).toEqual([0, 0, 0]);
    expect(limiter.admit(0)).toBe(500);
    expect(limiter.admit(499)).toBe(1);
    expect(limiter.admit(500)).toBe(0);
    expect(limiter.admit(500)).toBe(500);
  });

  it('never holds more than requests plus burst after a long quiet spell', () => {
    const limiter = new RouteLimiter([new TokenBucket({ requests: 1, intervalMs: 60_000, burst: 0 }, 0)]);
    expect(limiter.admit(0)).toBe(0);
    expect(limiter.admit(10 * 60_000)).toBe(0);
    expect(limiter.admit(10 * 60_000)).toBe(60_000);
  });

  it('takes a token from every bucket only when all of them have one', () => {
    const perSecond = new TokenBucket({ requests: 10, intervalMs: 1000, burst: 0 }, 0);
    const perHour = new TokenBucket({ requests: 1, intervalMs: 3_600_000, burst: 0 }, 0);
    const limiter = new RouteLimiter([perSecond, perHour]);
    expect(limiter.admit(0)).toBe(0);
    expect(limiter.admit(0)).toBe(3_600_000);
    // The refused request took nothing from the per-second bucket: nine are left.
    expect(perSecond.waitMs(0)).toBe(0);
    for (let i = 0; i < 9; i++) perSecond.take();
    expect(perSecond.waitMs(0)).toBe(100);
  });
});

describe('token limits', () => {
  it('admits while tokens are left, counts each answer afterwards, and refuses until the debt is refilled', () => {
    const limiter = new RouteLimiter([], [new TokenBucket({ tokens: 100, intervalMs: 1000, burst: 0 }, 0)]);
    expect(limiter.admit(0)).toBe(0);
    // The first answer used 250 tokens: 150 more than the bucket held, paid off at 100 per second.
    limiter.charge(250, 0);
    expect(limiter.admit(0)).toBe(1510);
    expect(limiter.admit(1509)).toBe(1);
    expect(limiter.admit(1510)).toBe(0);
    // Admission takes nothing from a token bucket: only usage does.
    expect(limiter.admit(1510)).toBe(0);
  });

  it('charges every token bucket of the route and none of its request buckets', () => {
    const requests = new TokenBucket({ requests: 1, intervalMs: 1000, burst: 0 }, 0);
    const tokens = new TokenBucket({ tokens: 10, intervalMs: 1000, burst: 0 }, 0);
    const limiter = new RouteLimiter([requests], [tokens]);
    limiter.charge(5, 0);
    expect(requests.waitMs(0)).toBe(0);
    expect(tokens.waitMs(0)).toBe(0);
    limiter.charge(10, 0);
    expect(tokens.waitMs(0)).toBe(600);
  });
});

describe('RateLimits', () => {
  it("keeps a route's buckets across snapshots while its limits stay the same, and resets them when they change", () => {
    let now = 0;
    const limits = new RateLimits(() => now);
    const one = [{ requests: 1, intervalMs: 3_600_000 as const, burst: 0 }];
    expect(
      limits
        .update(new Map([['r', { requests: one, tokens: [] }]]))
        .get('r')
        ?.admit(now),
    ).toBe(0);
    now = 1000;
    expect(
      limits
        .update(new Map([['r', { requests: one, tokens: [] }]]))
        .get('r')
        ?.admit(now),
    ).toBeGreaterThan(0);
    const changed = limits.update(new Map([['r', { requests: [{ ...one[0]!, burst: 1 }], tokens: [] }]]));
    expect(changed.get('r')?.admit(now)).toBe(0);
    expect(limits.update(new Map([['r', { requests: [], tokens: [] }]])).has('r')).toBe(false);
  });
});

describe('retry decisions', () => {
  const plan = { attempts: 2, backoffMs: 100, codes: new Set([503]) };

  it('retries a listed status or a connect failure while attempts are left', () => {
    expect(mayRetry(plan, 1, { status: 503 })).toBe(true);
    expect(mayRetry(plan, 2, 'connect')).toBe(true);
    expect(mayRetry(plan, 3, { status: 503 })).toBe(false);
    expect(mayRetry(plan, 1, { status: 500 })).toBe(false);
    expect(mayRetry(undefined, 1, 'connect')).toBe(false);
  });

  it('doubles the backoff per retry up to eight times the base', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(plan, n))).toEqual([100, 200, 400, 800, 800, 800]);
  });
});
