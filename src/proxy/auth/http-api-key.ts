// API key authentication (GwPolicy traffic.apiKeyAuthentication) on any route. The IR carries only the
// SHA-256 of each key; the presented key is hashed and compared in constant time against every one.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Route } from '../../ir/types.js';
import type { RouteAuth } from './hooks.js';
import { sendError } from '../http/http-error.js';
import { locationProblem, readCredential, refuseBroken, removeCredential, type Location } from './http-jwt.js';

export type ApiKeyAuthenticationIr = NonNullable<NonNullable<Route['policy']>['apiKeyAuthentication']>;

const bearer: Location = { header: 'authorization', prefix: 'Bearer ', queryParameter: '', cookie: '', expression: '' };

export function createApiKeyAuth(cfg: ApiKeyAuthenticationIr): RouteAuth {
  const entries = (cfg.entries ?? [])
    .map((e) => ({ hash: Buffer.from(e.keySha256, 'hex'), metadata: metadataOf(e.metadataJson) }))
    .filter((e) => e.hash.length === 32);
  const location: Location = cfg.location ?? bearer;
  const broken = locationProblem(location);
  const challenge: Record<string, string> =
    location.header.toLowerCase() === 'authorization' ? { 'www-authenticate': 'Bearer' } : {};
  return {
    handle: () => Promise.resolve(false),
    paths: [],
    authenticate(req, res) {
      if (broken) return refuseBroken(req, res, broken);
      const key = readCredential(req, location);
      if (!key) {
        if (cfg.mode === 'OPTIONAL' || cfg.mode === 'PERMISSIVE') return { claims: null };
        req.resume();
        sendError(res, 'unauthorized', 'API key required', challenge);
        return null;
      }
      const presented = createHash('sha256').update(key, 'utf8').digest();
      // Every stored hash is compared, so the time taken does not depend on which key matched.
      let matched: (typeof entries)[number] | undefined;
      for (const e of entries) if (timingSafeEqual(e.hash, presented) && !matched) matched = e;
      if (!matched && cfg.mode !== 'PERMISSIVE') {
        req.resume();
        sendError(res, 'invalid_api_key', 'The API key is not valid', challenge);
        return null;
      }
      removeCredential(req, location, key);
      return { claims: null, ...(matched ? { apiKey: matched.metadata } : {}) };
    },
  };
}

/** The translator wrote this JSON object; anything else means no metadata rather than a failed request. */
function metadataOf(json: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(json || '{}');
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
