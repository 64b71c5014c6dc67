// Generic JWT authentication for any route (GwPolicy traffic.jwtAuthentication without `mcp`): the token
// is read from the configured location, checked against every provider whose issuer equals its `iss`
// with the same verifier and key cache MCP auth uses, and removed before forwarding unless preserveToken.
import { IncomingMessage, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { decodeJwt } from 'jose/jwt/decode';
import type { Logger } from 'pino';
import type { Route } from '../../ir/types.js';
import { ProblemError } from '../../problem.js';
import type { AuthResult, RouteAuth } from './hooks.js';
import type { JwksTlsFetch } from './jwks-fetch.js';
import { sendError } from '../http/http-error.js';
import { createKeySource, parseKeySet } from './jwks-cache.js';
import { createTokenVerifier, type Verify, type VerifyResult } from './token-verifier.js';
import { compiledExpression, credentialByExpression } from './credential-expression.js';

export type JwtAuthenticationIr = NonNullable<NonNullable<Route['policy']>['jwtAuthentication']>;
/** Where a credential is read: a header (with prefix), query parameter or cookie, or a CEL `expression`. */
export type Location = NonNullable<JwtAuthenticationIr['location']>;

export interface HttpJwtDeps {
  log: Logger;
  fetch?: typeof fetch;
  now?: () => number;
  jwksCooldownMs?: number;
  /** Names the policy in configuration problems (`GwPolicy ns/name`). */
  source: string;
  /** How keys are fetched over a provider's own TLS (`jwks.remote.backendRef`); without it such a provider is refused. */
  tlsFetch?: JwksTlsFetch;
}

const defaultLocation: Location = {
  header: 'authorization',
  prefix: 'Bearer ',
  queryParameter: '',
  cookie: '',
  expression: '',
};

/** Every provider of one jwtAuthentication as one check: a token is tried against each provider whose issuer equals its `iss`. */
export function providersVerifier(
  list: JwtAuthenticationIr['providers'],
  deps: HttpJwtDeps,
  path = 'spec.traffic.jwtAuthentication.providers',
  firstIndex = 0,
): Verify {
  const now = deps.now ?? Date.now;
  const providers = list.map((p, i) => {
    let inline;
    if (p.jwksInline) {
      try {
        inline = parseKeySet(JSON.parse(p.jwksInline));
      } catch (err) {
        throw new ProblemError([
          { source: deps.source, path: `${path}[${i + firstIndex}].jwks.inline`, message: (err as Error).message },
        ]);
      }
    }
    const viaTls = p.jwksTls && p.jwksUrl ? deps.tlsFetch?.(p.jwksTls, p.jwksUrl) : undefined;
    // Never fetched without the TLS it names: a provider whose TLS cannot be honoured is a configuration problem.
    if (p.jwksTls && !viaTls)
      throw new ProblemError([
        {
          source: deps.source,
          path: `${path}[${i + firstIndex}].jwks.remote.backendRef`,
          message: 'TLS key fetches are not available here',
        },
      ]);
    const keys = createKeySource({
      inline,
      url: p.jwksUrl ? () => Promise.resolve(p.jwksUrl) : undefined,
      fetch: viaTls ?? deps.fetch ?? fetch,
      now,
      log: deps.log.child({ issuer: p.issuer }),
      cooldownMs: deps.jwksCooldownMs,
      ...(p.jwksCacheSeconds ? { maxAgeMs: p.jwksCacheSeconds * 1000 } : {}),
    });
    return { issuer: p.issuer, verify: createTokenVerifier({ issuer: p.issuer, audiences: p.audiences, keys, now }) };
  });
  // A token one provider verified before is answered from its cache, without decoding it again.
  return (token, conn) => {
    for (const p of providers) {
      const hit = p.verify.cached(token, conn);
      if (hit) return hit;
    }
    return verifyByIssuer(token, conn);
  };
  async function verifyByIssuer(token: string, conn: object | undefined): Promise<VerifyResult> {
    let iss: unknown;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      return { ok: false, description: 'The access token is malformed' };
    }
    const matching = providers.filter((p) => p.issuer === iss);
    if (matching.length === 0) return { ok: false, description: notAcceptedIssuer };
    let last: VerifyResult = { ok: false, description: 'The access token is malformed' };
    for (const p of matching) {
      last = await p.verify(token, conn);
      if (last.ok) return last;
    }
    return last;
  }
}

/** A route whose credential location cannot be read refuses every request: never served unauthenticated. */
export function refuseBroken(req: IncomingMessage, res: ServerResponse, why: string): null {
  req.resume();
  sendError(res, 'policy_not_enforced', why);
  return null;
}

export const notAcceptedIssuer = 'The access token was not issued by an accepted issuer';

/** A RouteAuth whose `handle` never answers (no discovery endpoints) and whose `authenticate` checks JWTs. */
export function createHttpJwtAuth(cfg: JwtAuthenticationIr, deps: HttpJwtDeps): RouteAuth {
  const log = deps.log.child({ component: 'jwt-auth' });
  const verify = providersVerifier(cfg.providers, { ...deps, log });
  const mode = cfg.mode === 'OPTIONAL' ? 'optional' : cfg.mode === 'PERMISSIVE' ? 'permissive' : 'strict';
  const location = cfg.location ?? defaultLocation;
  const broken = locationProblem(location);

  return {
    handle: () => Promise.resolve(false),
    paths: [],
    authenticate(req: IncomingMessage, res: ServerResponse) {
      if (broken) return refuseBroken(req, res, broken);
      const token = readCredential(req, location);
      if (!token) {
        if (mode !== 'strict') return { claims: null };
        req.resume();
        sendError(res, 'unauthorized', 'JWT token required', { 'www-authenticate': 'Bearer' });
        return null;
      }
      const result = verify(token, req.socket);
      return result instanceof Promise
        ? result.then((r) => settle(req, res, r, token))
        : settle(req, res, result, token);
    },
  };

  function settle(req: IncomingMessage, res: ServerResponse, result: VerifyResult, token: string): AuthResult | null {
    // Also on failure: a permissive route forwards the request, and the backend must not see the token.
    if (!cfg.preserveToken) removeCredential(req, location, token);
    if (!result.ok) {
      log.debug({ reason: result.description }, 'bearer token rejected');
      if (mode === 'permissive') return { claims: null };
      req.resume();
      sendError(res, 'invalid_token', result.description, {
        'www-authenticate': `Bearer error="invalid_token", error_description="${result.description}"`,
      });
      return null;
    }
    return { claims: result.claims };
  }
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/** The credential after the prefix; a word prefix (`Bearer`) must be followed by a space and compares case-insensitively. */
function afterPrefix(value: string, prefix: string): string | undefined {
  const p = prefix.trim();
  if (!p) return value.trim() || undefined;
  if (value.slice(0, p.length).toLowerCase() !== p.toLowerCase()) return undefined;
  const rest = value.slice(p.length);
  if (/[A-Za-z0-9]$/.test(p) && !/^ /.test(rest)) return undefined;
  return rest.trim() || undefined;
}

function cookies(req: IncomingMessage): { name: string; value: string }[] {
  return (headerValue(req, 'cookie') ?? '')
    .split(';')
    .map((c) => {
      const eq = c.indexOf('=');
      return eq < 0 ? { name: c.trim(), value: '' } : { name: c.slice(0, eq).trim(), value: c.slice(eq + 1).trim() };
    })
    .filter((c) => c.name);
}

export function readCredential(req: IncomingMessage, loc: Location): string | undefined {
  if (loc.expression) return credentialByExpression(req, loc, loc.expression);
  if (loc.header) {
    const v = headerValue(req, loc.header);
    return v === undefined ? undefined : afterPrefix(v, loc.prefix);
  }
  if (loc.queryParameter) {
    const q = (req.url ?? '').split('?')[1];
    return q === undefined ? undefined : new URLSearchParams(q).get(loc.queryParameter) || undefined;
  }
  return cookies(req).find((c) => c.name === loc.cookie)?.value || undefined;
}

/**
 * Removes the credential so the backend never sees it (header, query parameter, or cookie). For a CEL location,
 * `credential` is what it read: every header, query parameter and cookie carrying it is removed.
 */
export function removeCredential(req: IncomingMessage, loc: Location, credential?: string): void {
  if (loc.expression) {
    if (credential) removeValue(req, credential);
    return;
  }
  if (loc.header) {
    withoutHeader(req, loc.header.toLowerCase());
  } else if (loc.queryParameter) {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    if (q < 0) return;
    const params = new URLSearchParams(url.slice(q + 1));
    params.delete(loc.queryParameter);
    const rest = params.toString();
    req.url = url.slice(0, q) + (rest ? `?${rest}` : '');
  } else {
    const rest = cookies(req)
      .filter((c) => c.name !== loc.cookie)
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
    withoutHeader(req, 'cookie');
    if (rest) req.headers.cookie = rest;
  }
}

/** Removes every header, query parameter and cookie whose value is `credential` (or ends with ` credential`). */
function removeValue(req: IncomingMessage, credential: string): void {
  const carries = (v: string): boolean => v === credential || v.endsWith(` ${credential}`);
  for (const [k, v] of Object.entries(req.headers))
    if (k !== 'cookie' && (Array.isArray(v) ? v.some(carries) : v !== undefined && carries(v))) withoutHeader(req, k);
  for (const c of cookies(req)) if (c.value === credential) removeCredential(req, { ...noLocation, cookie: c.name });
  const q = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
  for (const [k, v] of q) if (v === credential) removeCredential(req, { ...noLocation, queryParameter: k });
}

const noLocation: Location = { header: '', prefix: '', queryParameter: '', cookie: '', expression: '' };

/** Why `loc` cannot be read (a CEL expression that does not compile); the route then refuses every request. */
export function locationProblem(loc: Location): string | undefined {
  if (!loc.expression) return undefined;
  const c = compiledExpression(loc, loc.expression);
  return typeof c === 'string' ? c : undefined;
}

/**
 * Drops one header (`name` in lower case) from the request, from `rawHeaders` too, so no later stage and
 * no reference held for the request's life keeps the credential. Node's requests take a new headers
 * object rather than a `delete`, which would turn the object V8 reads every later header from into a slow
 * dictionary (about 1 µs per MCP call over the headers the endpoint reads); an HTTP/2 compatibility
 * request has no setter, so there the header is deleted.
 */
export function withoutHeader(req: IncomingMessage, name: string): void {
  const headers = req.headers;
  if (!(name in headers)) return;
  if (!(req instanceof IncomingMessage)) {
    delete headers[name];
    return;
  }
  const kept: IncomingHttpHeaders = {};
  for (const k in headers) if (k !== name) kept[k] = headers[k];
  req.headers = kept;
  const raw = req.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) if ((raw[i] as string).toLowerCase() === name) raw.splice(i, 2);
}
