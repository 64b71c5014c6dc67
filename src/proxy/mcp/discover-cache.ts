// A 2026-07-28 target's `server/discover` answer, kept for as long as the target's own caching controls
// allow (`ttlMs`, `cacheScope`), so the session serving each request of a 2026 client does not ask every
// target again (docs/proxy.md "Caching controls"). What an answer may depend on is in its key:
// - the target: the snapshot's own object, so a reload (new URL, new credentials) starts afresh;
// - what the proxy sent it: the envelope's client capabilities and clientInfo;
// - for a `private` answer, the caller's authenticated subject: it is reused for that caller only, and an
//   answer for a caller without one (anonymous, API key) is not kept, since nobody could be told apart.
// Never kept longer than `maxTtlMs`; a target whose call fails is asked again (`forget`).
import { createHash } from 'node:crypto';
import type { Implementation, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';

/** What the proxy takes from a target's answer to server/discover. */
export interface Discovered {
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  serverInfo: Implementation | undefined;
  instructions: string | undefined;
}

/** The answer's caching controls as the target sent them (validated here, not trusted). */
export interface CacheControls {
  ttlMs?: unknown;
  cacheScope?: unknown;
}

interface Entry {
  value: Discovered;
  expires: number;
}

export interface DiscoverCacheOptions {
  now?: () => number;
  /** Entries per target; the oldest goes first. */
  maxEntries?: number;
  /** The longest a target's `ttlMs` is honoured. */
  maxTtlMs?: number;
}

export class DiscoverCache {
  private readonly byTarget = new WeakMap<object, Map<string, Entry>>();
  private readonly now: () => number;
  private readonly maxEntries: number;
  private readonly maxTtlMs: number;

  constructor(opts: DiscoverCacheOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.maxEntries = opts.maxEntries ?? 256;
    this.maxTtlMs = opts.maxTtlMs ?? 300_000;
  }

  /** The answer for this target, what it was sent and this caller, if one is still fresh. */
  get(target: object, sent: string, caller: string | undefined): Discovered | undefined {
    const entries = this.byTarget.get(target);
    if (!entries) return undefined;
    return this.fresh(entries, publicKey(sent)) ?? (caller ? this.fresh(entries, privateKey(sent, caller)) : undefined);
  }

  /** Keeps an answer as its controls allow; false when they allow nothing (ttl 0, private without a caller, invalid). */
  put(target: object, sent: string, caller: string | undefined, controls: CacheControls, value: Discovered): boolean {
    const ttl = controls.ttlMs;
    if (typeof ttl !== 'number' || !Number.isSafeInteger(ttl) || ttl <= 0) return false;
    const key =
      controls.cacheScope === 'public'
        ? publicKey(sent)
        : controls.cacheScope === 'private' && caller
          ? privateKey(sent, caller)
          : undefined;
    if (key === undefined) return false;
    let entries = this.byTarget.get(target);
    if (!entries) this.byTarget.set(target, (entries = new Map()));
    entries.delete(key);
    if (entries.size >= this.maxEntries) entries.delete(entries.keys().next().value as string);
    entries.set(key, { value, expires: this.now() + Math.min(ttl, this.maxTtlMs) });
    return true;
  }

  /** Drops every answer of a target (it failed a call, or stopped speaking 2026-07-28). */
  forget(target: object): void {
    this.byTarget.delete(target);
  }

  private fresh(entries: Map<string, Entry>, key: string): Discovered | undefined {
    const e = entries.get(key);
    if (!e) return undefined;
    if (e.expires > this.now()) return e.value;
    entries.delete(key);
    return undefined;
  }
}

/**
 * What the proxy sent a target with server/discover, as a key: the JSON itself when short (hashing every
 * request's envelope cost more than the rest of the lookup), else a digest, so a large envelope costs no
 * memory. The two forms cannot meet: the JSON starts with `[`, the digest never does.
 */
export function sentKey(capabilities: unknown, clientInfo: unknown): string {
  const json = JSON.stringify([capabilities, clientInfo]);
  return json.length <= 256 ? json : createHash('sha256').update(json).digest('base64url');
}

// The sent key's length goes first, so the caller's subject after it cannot be read as part of it.
const publicKey = (sent: string): string => `public ${sent}`;
const privateKey = (sent: string, caller: string): string => `private ${sent.length} ${sent} ${caller}`;

/** The proxy's one cache of discover answers (targets are keyed by object, so each snapshot has its own). */
export const discoverAnswers = new DiscoverCache();
