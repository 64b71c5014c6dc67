// Backend tokens kept until shortly before they expire (GwPolicy `backend.auth.oauthTokenExchange.cache`).
// Bounded by `maxEntries` (oldest first out; 0 keeps nothing). Keys are digests, so the cache holds no
// client token; the values are upstream tokens and are never logged.

/** A token as the issuer gave it: `renewAt` is when a fresh one is fetched, `expiresAt` when this one stops being sent. */
export interface CachedToken {
  value: string;
  renewAt: number;
  expiresAt: number;
}

/** Tokens are renewed this long before they expire, or at 80% of their life when that is sooner. */
const RENEW_BEFORE_MS = 60_000;

/** A token living `lifeMs` from `now`, with its renewal time. */
export function tokenLiving(value: string, now: number, lifeMs: number): CachedToken {
  return { value, renewAt: now + lifeMs - Math.min(RENEW_BEFORE_MS, lifeMs / 5), expiresAt: now + lifeMs };
}

export class TokenCache {
  private readonly entries = new Map<string, CachedToken>();

  constructor(readonly maxEntries: number) {}

  /** The token under `key` while it has not expired (it may be due for renewal). */
  get(key: string, now: number): CachedToken | undefined {
    const t = this.entries.get(key);
    if (!t) return undefined;
    if (t.expiresAt > now) return t;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, token: CachedToken): void {
    if (this.maxEntries <= 0) return;
    this.entries.delete(key);
    // Map order is insertion order: the first key is the one stored longest ago.
    while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, token);
  }

  get size(): number {
    return this.entries.size;
  }
}
