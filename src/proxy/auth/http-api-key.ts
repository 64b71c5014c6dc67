// API key authentication (GwPolicy traffic.apiKeyAuthentication) on any route. The IR carries only the
// SHA-256 of each key; the presented key is hashed and compared in constant time against every one.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Route } from '../../ir/types.js';
import type { RouteAuth } from './hooks.js';
import { sendError } from '../http/http-error.js';
import { readCredential, removeCredential } from './http-jwt.js';

export type ApiKeyAuthenticationIr = NonNullable<NonNullable<Route['policy']>['apiKeyAuthentication']>;

const bearer = { header: 'authorization', prefix: 'Bearer ', queryParameter: '', cookie: '' };

export function createApiKeyAuth(cfg: ApiKeyAuthenticationIr): RouteAuth {
  const hashes = cfg.keySha256.map((h) => Buffer.from(h, 'hex')).filter((b) => b.length === 32);
  const location = cfg.location ?? bearer;
  const challenge: Record<string, string> =
    location.header.toLowerCase() === 'authorization' ? { 'www-authenticate': 'Bearer' } : {};
  return {
    handle: () => Promise.resolve(false),
    paths: [],
    authenticate(req, res) {
      const key = readCredential(req, location);
      if (!key) {
        if (cfg.mode === 'OPTIONAL' || cfg.mode === 'PERMISSIVE') return Promise.resolve({ claims: null });
        req.resume();
        sendError(res, 'unauthorized', 'API key required', challenge);
        return Promise.resolve(null);
      }
      const presented = createHash('sha256').update(key, 'utf8').digest();
      // Every stored hash is compared, so the time taken does not depend on which key matched.
      let ok = false;
      for (const h of hashes) ok = timingSafeEqual(h, presented) || ok;
      if (!ok && cfg.mode !== 'PERMISSIVE') {
        req.resume();
        sendError(res, 'invalid_api_key', 'The API key is not valid', challenge);
        return Promise.resolve(null);
      }
      removeCredential(req, location);
      return Promise.resolve({ claims: null });
    },
  };
}
