// GwPolicy `traffic.rateLimit.local`: token buckets per route, kept in this proxy process only (each
// replica counts on its own). The clock is injected so the arithmetic is testable without waiting.
import type { RequestLimit, TokenLimit } from './traffic-policy.js';

/**
 * `requests` per `intervalMs`, refilled continuously; holds up to `requests + burst`, and starts full, so a
 * quiet client may send `requests + burst` at once and then `requests` per unit.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  readonly capacity: number;
  private readonly perMs: number;

  constructor(limit: RequestLimit | TokenLimit, now: number) {
    const amount = 'tokens' in limit ? limit.tokens : limit.requests;
    this.capacity = amount + limit.burst;
    this.perMs = amount / limit.intervalMs;
    this.tokens = this.capacity;
    this.last = now;
  }

  private refill(now: number): void {
    if (now > this.last) this.tokens = Math.min(this.capacity, this.tokens + (now - this.last) * this.perMs);
    this.last = Math.max(this.last, now);
  }

  /** Milliseconds until one token is there; 0 when one is there now. */
  waitMs(now: number): number {
    this.refill(now);
    // The epsilon keeps float noise (0.998 tokens after 499ms at 2/s) from adding a millisecond.
    return this.tokens >= 1 - 1e-9 ? 0 : Math.ceil((1 - this.tokens) / this.perMs - 1e-6);
  }

  /** `n` above what is left leaves a debt that later refills pay off first (LLM usage is known only afterwards). */
  take(n = 1): void {
    this.tokens -= n;
  }

  /** Charges `n` at `now`, after refilling up to `now`. */
  charge(n: number, now: number): void {
    this.refill(now);
    this.take(n);
  }
}

/**
 * A route's buckets: a request passes only when every one of them has a token, and then takes one from each
 * request bucket. LLM-token buckets are charged with the usage of each answer (`charge`), so a request passes
 * while any tokens are left and its own usage counts against the requests after it, as the seed says.
 */
export class RouteLimiter {
  constructor(
    readonly buckets: TokenBucket[],
    readonly tokenBuckets: TokenBucket[] = [],
  ) {}

  /** 0 when the request may pass (its tokens are taken); else milliseconds until it could. */
  admit(now: number): number {
    const wait = Math.max(0, ...this.buckets.map((b) => b.waitMs(now)), ...this.tokenBuckets.map((b) => b.waitMs(now)));
    if (wait === 0) for (const b of this.buckets) b.take();
    return wait;
  }

  /** Counts `tokens` LLM tokens (input + output of one answer) against every token bucket. */
  charge(tokens: number, now: number): void {
    if (tokens > 0) for (const b of this.tokenBuckets) b.charge(tokens, now);
  }
}

/** The limits of one route: request counts and LLM token counts, each its own bucket. */
export interface RouteLimits {
  requests: RequestLimit[];
  tokens: TokenLimit[];
}

/**
 * Limiters by route, rebuilt on every snapshot; a route whose limits did not change keeps its buckets,
 * so a config push does not hand every client a fresh burst.
 */
export class RateLimits {
  private byRoute = new Map<string, { key: string; limiter: RouteLimiter }>();

  constructor(private readonly clock: () => number = Date.now) {}

  now(): number {
    return this.clock();
  }

  /** Replaces the table with `routes` (route name → limits); returns the limiter of each route with limits. */
  update(routes: Map<string, RouteLimits>): Map<string, RouteLimiter> {
    const next = new Map<string, { key: string; limiter: RouteLimiter }>();
    for (const [name, limits] of routes) {
      if (limits.requests.length === 0 && limits.tokens.length === 0) continue;
      const key = JSON.stringify(limits);
      const prior = this.byRoute.get(name);
      const bucket = (l: RequestLimit | TokenLimit): TokenBucket => new TokenBucket(l, this.clock());
      next.set(
        name,
        prior?.key === key
          ? prior
          : { key, limiter: new RouteLimiter(limits.requests.map(bucket), limits.tokens.map(bucket)) },
      );
    }
    this.byRoute = next;
    return new Map([...next].map(([name, v]) => [name, v.limiter]));
  }
}
