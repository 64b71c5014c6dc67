// HTTP Basic authentication (GwPolicy traffic.basicAuthentication) on any route: the user and password
// (base64 `user:password`, by default in the Authorization header after `Basic `; else at `location`)
// are checked against htpasswd hashes; the credential is removed before forwarding.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Route } from '../../ir/types.js';
import type { RouteAuth } from './hooks.js';
import { sendError } from '../http/http-error.js';
import { verifyHtpasswd } from './htpasswd.js';
import { readCredential, removeCredential, type Location } from './http-jwt.js';

export type BasicAuthenticationIr = NonNullable<NonNullable<Route['policy']>['basicAuthentication']>;

const inAuthorization: Location = {
  header: 'authorization',
  prefix: 'Basic',
  queryParameter: '',
  cookie: '',
  expression: '',
};

export function createBasicAuth(cfg: BasicAuthenticationIr): RouteAuth {
  const location = cfg.location ?? inAuthorization;
  const users = new Map(cfg.users.map((u) => [u.name, u.hash]));
  // Quotes and backslashes would end the quoted-string early (RFC 7235); the realm is configuration, not secret.
  const challenge = `Basic realm="${(cfg.realm || 'Restricted').replace(/["\\]/g, '')}", charset="UTF-8"`;
  const refuse = (
    req: IncomingMessage,
    res: ServerResponse,
    error: 'unauthorized' | 'invalid_credentials',
    description: string,
  ): null => {
    req.resume();
    sendError(res, error, description, { 'www-authenticate': challenge });
    return null;
  };
  return {
    handle: () => Promise.resolve(false),
    paths: [],
    authenticate(req, res) {
      const credential = readCredential(req, location);
      const m = credential === undefined ? null : /^([A-Za-z0-9+/=]+)$/.exec(credential);
      if (!m) {
        // Optional: only a request with nothing at the location goes on unauthenticated.
        const absent = readCredential(req, { ...location, prefix: '' }) === undefined;
        if (absent && cfg.mode === 'OPTIONAL') return { claims: null };
        return refuse(req, res, 'unauthorized', 'Basic credentials required');
      }
      const decoded = Buffer.from(m[1] as string, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const hash = colon > 0 ? users.get(decoded.slice(0, colon)) : undefined;
      // An unknown user still costs one hash check, so timing does not tell which user names exist.
      const ok =
        verifyHtpasswd(hash ?? cfg.users[0]?.hash ?? '', colon > 0 ? decoded.slice(colon + 1) : '') &&
        hash !== undefined;
      if (!ok) return refuse(req, res, 'invalid_credentials', 'The user name or password is not valid');
      removeCredential(req, location);
      return { claims: null };
    },
  };
}
