// Signing keys for token verification: fetched, cached, refetched on an unknown `kid` (with a
// cooldown so forged kids cannot hammer the provider) and when stale, so keys rotate without a restart.
import type { JSONWebKeySet, JWTVerifyGetKey } from 'jose';
import * as errors from 'jose/errors';
import { createLocalJWKSet } from 'jose/jwks/local';
import type { Logger } from 'pino';

export class KeysUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeysUnavailableError';
  }
}

export interface KeySourceOptions {
  /** Resolves the key URL (may itself need discovery); ignored when `inline` is set. */
  url?: () => Promise<string>;
  inline?: JSONWebKeySet;
  fetch: typeof fetch;
  now: () => number;
  log: Logger;
  /** Minimum time between two fetches, also after a failure. */
  cooldownMs?: number;
  /** Keys older than this are refetched on the next use (old keys stay if that fails); default 5 minutes. */
  maxAgeMs?: number;
  timeoutMs?: number;
}

const maxKeySetBytes = 512 * 1024;

export function parseKeySet(value: unknown): JSONWebKeySet {
  if (typeof value !== 'object' || value === null || !Array.isArray((value as { keys?: unknown }).keys)) {
    throw new Error('is not a JSON Web Key Set: it must be an object with a "keys" list');
  }
  const keys = (value as { keys: unknown[] }).keys.filter(
    (k) => typeof k === 'object' && k !== null && !('d' in k) && !('k' in k),
  );
  return { keys: keys as JSONWebKeySet['keys'] };
}

export function createKeySource(opts: KeySourceOptions): JWTVerifyGetKey {
  const maxAgeMs = opts.maxAgeMs ?? 5 * 60_000;
  // A cache shorter than the cooldown is honoured: staleness alone already spaces the fetches.
  const cooldownMs = Math.min(opts.cooldownMs ?? 30_000, maxAgeMs);
  const timeoutMs = opts.timeoutMs ?? 5_000;
  let select = opts.inline ? createLocalJWKSet(opts.inline) : undefined;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let lastAttempt = Number.NEGATIVE_INFINITY;
  let inflight: Promise<boolean> | undefined;

  const load = async (): Promise<void> => {
    if (!opts.url) throw new KeysUnavailableError('no signing-key URL is configured');
    const url = await opts.url();
    const res = await opts.fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
    const text = await res.text();
    if (!res.ok) throw new KeysUnavailableError(`signing-key endpoint answered ${res.status}`);
    if (text.length > maxKeySetBytes) throw new KeysUnavailableError('signing-key set is too large');
    select = createLocalJWKSet(parseKeySet(JSON.parse(text)));
    fetchedAt = opts.now();
    opts.log.debug({ jwksUrl: url }, 'signing keys loaded');
  };

  /** Refetches unless one ran within the cooldown; resolves true when fresh keys arrived. */
  const refresh = (): Promise<boolean> => {
    if (opts.inline) return Promise.resolve(false);
    if (inflight) return inflight;
    if (opts.now() - lastAttempt < cooldownMs) return Promise.resolve(false);
    lastAttempt = opts.now();
    inflight = load()
      .then(() => true)
      .catch((err: unknown) => {
        opts.log.warn({ err: (err as Error).message }, 'signing keys could not be fetched');
        return false;
      })
      .finally(() => {
        inflight = undefined;
      });
    return inflight;
  };

  return async (header, token) => {
    if (!select || opts.now() - fetchedAt > maxAgeMs) await refresh();
    if (!select) throw new KeysUnavailableError('signing keys are unavailable');
    try {
      return await select(header, token);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
      // An unknown kid may mean the provider rotated keys: refetch once, within the cooldown.
      if (!(await refresh())) throw err;
      return select(header, token);
    }
  };
}
