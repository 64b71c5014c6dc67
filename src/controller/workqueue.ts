// A client-go-style work queue: de-duplicating (a key waits at most once), per-key serialised (a key
// handed to a worker is not handed out again until done(); re-added meanwhile, it is queued again at
// done()), delayed adds (earliest wins) and per-key rate limiting. The clock is injected.
import type { Clock } from './clock.js';

export interface RateLimiter {
  /** How long `key` should wait before its next try. */
  when(key: string): number;
  forget(key: string): void;
  retries(key: string): number;
}

/** Per-key exponential backoff: base·2^failures, capped. */
export function exponentialLimiter(baseMs = 5, maxMs = 1000_000): RateLimiter {
  const failures = new Map<string, number>();
  return {
    when(key) {
      const n = failures.get(key) ?? 0;
      failures.set(key, n + 1);
      return Math.min(maxMs, baseMs * 2 ** Math.min(n, 40));
    },
    forget: (key) => void failures.delete(key),
    retries: (key) => failures.get(key) ?? 0,
  };
}

/** An overall token bucket (`qps` refill, `burst` size) shared by every key, as client-go's BucketRateLimiter. */
export function bucketLimiter(clock: Clock, qps = 10, burst = 100): RateLimiter {
  let tokens = burst;
  let last = clock.now();
  return {
    when() {
      const now = clock.now();
      tokens = Math.min(burst, tokens + ((now - last) / 1000) * qps);
      last = now;
      tokens -= 1;
      // A negative balance is a reservation: this caller waits until its token has been refilled.
      return tokens >= 0 ? 0 : Math.ceil((-tokens / qps) * 1000);
    },
    forget: () => undefined,
    retries: () => 0,
  };
}

/** The longest wait any of the limiters asks for (client-go's MaxOfRateLimiter). */
export function maxOfLimiters(...limiters: RateLimiter[]): RateLimiter {
  return {
    when: (key) => Math.max(...limiters.map((l) => l.when(key))),
    forget: (key) => limiters.forEach((l) => l.forget(key)),
    retries: (key) => Math.max(...limiters.map((l) => l.retries(key))),
  };
}

/**
 * client-go's default pairing, with the per-key cap lowered from 1000 s to 60 s: reconciles here are
 * cheap, and after an API server outage a key should not sit out a quarter of an hour.
 */
export function defaultLimiter(clock: Clock): RateLimiter {
  return maxOfLimiters(exponentialLimiter(5, 60_000), bucketLimiter(clock));
}

export class WorkQueue {
  private queue: string[] = [];
  private dirty = new Set<string>();
  private processing = new Set<string>();
  private waiters: ((key: string | undefined) => void)[] = [];
  private delayed = new Map<string, { at: number; handle: unknown }>();
  private drained: (() => void)[] = [];
  private shuttingDown = false;

  constructor(
    private readonly clock: Clock,
    private readonly limiter: RateLimiter = defaultLimiter(clock),
  ) {}

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.push(key);
  }

  /** Adds `key` after `ms`; a pending earlier add of the same key wins, a later one is brought forward. */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const at = this.clock.now() + ms;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) this.clock.clearTimeout(pending.handle);
    const handle = this.clock.setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    this.delayed.set(key, { at, handle });
  }

  addRateLimited(key: string): void {
    this.addAfter(key, this.limiter.when(key));
  }

  /** Stops backoff tracking for `key` (call after a success). */
  forget(key: string): void {
    this.limiter.forget(key);
  }

  retries(key: string): number {
    return this.limiter.retries(key);
  }

  /** The next key to process, or undefined once the queue is shut down and empty. */
  get(): Promise<string | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) return Promise.resolve(this.take(key));
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key) && !this.shuttingDown) this.push(key);
    else if (this.dirty.has(key)) this.dirty.delete(key);
    if (this.processing.size === 0) for (const d of this.drained.splice(0)) d();
  }

  len(): number {
    return this.queue.length;
  }

  isProcessing(key: string): boolean {
    return this.processing.has(key);
  }

  /** Refuses new keys, drops waiting and delayed ones, wakes idle workers; resolves when in-flight keys are done. */
  shutDown(): Promise<void> {
    this.shuttingDown = true;
    for (const { handle } of this.delayed.values()) this.clock.clearTimeout(handle);
    this.delayed.clear();
    for (const k of this.queue) this.dirty.delete(k);
    this.queue = [];
    for (const w of this.waiters.splice(0)) w(undefined);
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  private push(key: string): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(this.take(key));
    else this.queue.push(key);
  }

  private take(key: string): string {
    this.dirty.delete(key);
    this.processing.add(key);
    return key;
  }
}
