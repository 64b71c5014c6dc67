// HTTP Basic authentication (GwPolicy traffic.basicAuthentication) on any route: the Authorization header's
// user and password are checked against htpasswd hashes; the header is removed before forwarding.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Route } from '../../ir/types.js';
import type { RouteAuth } from './hooks.js';
import { sendError } from '../http/http-error.js';
import { verifyHtpasswd } from './htpasswd.js';
import { withoutHeader } from './http-jwt.js';

export type BasicAuthenticationIr = NonNullable<NonNullable<Route['policy']>['basicAuthentication']>;

export function createBasicAuth(cfg: BasicAuthenticationIr): RouteAuth {
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
      const header = req.headers.authorization;
      const m = typeof header === 'string' ? /^Basic[ ]+([A-Za-z0-9+/=]+)[ ]*$/i.exec(header) : null;
      if (!m) {
        if (header === undefined && cfg.mode === 'OPTIONAL') return { claims: null };
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
      withoutHeader(req, 'authorization');
      return { claims: null };
    },
  };
}
