// `backend.auth.oauthTokenExchange`: the subject (and actor) token of a request exchanged at a token
// endpoint (RFC 8693 token-exchange, or RFC 7523 jwt-bearer) for the token the upstream accepts. Tokens
// are cached per policy and per subject, actor and evaluated parameters (the policy fixes audiences and
// scopes), renewed shortly before they expire; the caches are keyed by the policy's content, so a new
// snapshot that leaves the policy as it was keeps them. Failures name the endpoint's host and the OAuth
// error code, never a token or a secret.
import { createHash } from 'node:crypto';
import type { TokenExchangeCredential__Output as TokenExchangeCredential } from '../../ir/gen/gw/ir/v1/TokenExchangeCredential.js';
import type { JwksTlsFetch } from './jwks-fetch.js';
import { clientAssertion } from './jwt-sign.js';
import { TokenCache, tokenLiving, type CachedToken } from './token-cache.js';

const TIMEOUT_MS = 10_000;
/** Distinct policies whose caches are kept; the least recently created goes first. */
const MAX_POLICIES = 256;
/** Codes with which a token endpoint refuses what the client brought (its token), not the proxy's setup. */
const CLIENT_ERRORS = new Set(['invalid_grant', 'invalid_request', 'invalid_target', 'invalid_scope', 'access_denied']);

/** Why no token could be had: the client's token was refused (401), or the endpoint failed (502). */
export class ExchangeFailure {
  constructor(
    readonly code: 'invalid_token' | 'credential_unavailable',
    readonly message: string,
  ) {}
}

/** What one request brings to an exchange: tokens and the evaluated `additionalParams`. */
export interface ExchangeInput {
  subject: string;
  actor?: string;
  params: Record<string, string>;
}

const digest = (v: string): string => createHash('sha256').update(v).digest('base64url');

export class TokenExchanges {
  private readonly caches = new Map<string, TokenCache>();
  private readonly fingerprints = new WeakMap<TokenExchangeCredential, string>();
  private readonly inFlight = new Map<string, Promise<CachedToken | ExchangeFailure>>();

  /** `tlsFetch` sends token requests to endpoints that carry the TLS of their backendRef (`tls`). */
  constructor(
    private readonly clock: () => number,
    private readonly tlsFetch?: JwksTlsFetch,
  ) {}

  /** The exchanged token for `input`, from the cache while it is fresh. `who` names the backend in messages. */
  async token(c: TokenExchangeCredential, input: ExchangeInput, who: string): Promise<string | ExchangeFailure> {
    const policy = this.fingerprint(c);
    const cache = this.cacheOf(policy, c.cacheMaxEntries);
    const key = digest(JSON.stringify([input.subject, input.actor ?? '', input.params]));
    const now = this.clock();
    const cached = cache.get(key, now);
    if (cached && now < cached.renewAt) return cached.value;
    const flightKey = `${policy} ${key}`;
    let pending = this.inFlight.get(flightKey);
    if (!pending) {
      pending = exchange(c, input, now, who, this.tlsFetch).finally(() => this.inFlight.delete(flightKey));
      this.inFlight.set(flightKey, pending);
    }
    const got = await pending;
    // A renewal that failed leaves the token it was to replace in use until it expires.
    if (got instanceof ExchangeFailure) return cached && this.clock() < cached.expiresAt ? cached.value : got;
    cache.set(key, got);
    return got.value;
  }

  /** Cached tokens of the policy `c` (for tests and the bench). */
  cachedCount(c: TokenExchangeCredential): number {
    return this.caches.get(this.fingerprint(c))?.size ?? 0;
  }

  private fingerprint(c: TokenExchangeCredential): string {
    let f = this.fingerprints.get(c);
    if (!f) {
      f = digest(JSON.stringify(c));
      this.fingerprints.set(c, f);
    }
    return f;
  }

  private cacheOf(policy: string, maxEntries: number): TokenCache {
    let cache = this.caches.get(policy);
    if (!cache) {
      if (this.caches.size >= MAX_POLICIES) this.caches.delete(this.caches.keys().next().value as string);
      cache = new TokenCache(maxEntries);
      this.caches.set(policy, cache);
    }
    return cache;
  }
}

/** The token request's form and headers: the grant, the tokens, the policy's parameters and the client's authentication. */
async function tokenRequest(
  c: TokenExchangeCredential,
  input: ExchangeInput,
  now: number,
): Promise<{ form: URLSearchParams; headers: Record<string, string> }> {
  const form = new URLSearchParams({ grant_type: c.grantType });
  if (c.grantType.endsWith(':jwt-bearer')) form.set('assertion', input.subject);
  else {
    form.set('subject_token', input.subject);
    form.set('subject_token_type', c.subjectTokenType);
    if (input.actor !== undefined) {
      form.set('actor_token', input.actor);
      form.set('actor_token_type', c.actorTokenType);
    }
    if (c.requestedTokenType) form.set('requested_token_type', c.requestedTokenType);
  }
  for (const a of c.audiences) form.append('audience', a);
  for (const r of c.resources) form.append('resource', r);
  if (c.scopes.length > 0) form.set('scope', c.scopes.join(' '));
  for (const [k, v] of Object.entries(input.params)) form.set(k, v);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  const client = c.client;
  if (client?.method === 'basicSecret') {
    // RFC 6749 §2.3.1: both parts form-encoded before they are joined.
    const enc = (v: string): string => encodeURIComponent(v).replace(/%20/g, '+');
    headers.authorization = `Basic ${Buffer.from(`${enc(client.clientId)}:${enc(client.basicSecret ?? '')}`).toString('base64')}`;
  } else if (client?.method === 'postSecret') {
    form.set('client_id', client.clientId);
    form.set('client_secret', client.postSecret ?? '');
  } else if (client?.method === 'privateKeyJwt' && client.privateKeyJwt) {
    form.set('client_id', client.clientId);
    form.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    form.set('client_assertion', await clientAssertion(client.clientId, client.privateKeyJwt, now));
  } else if (client?.clientId) form.set('client_id', client.clientId);
  return { form, headers };
}

async function exchange(
  c: TokenExchangeCredential,
  input: ExchangeInput,
  now: number,
  who: string,
  tlsFetch: JwksTlsFetch | undefined,
): Promise<CachedToken | ExchangeFailure> {
  const where = `${who}: token endpoint ${new URL(c.tokenUrl).host}`;
  // An endpoint with its backend's TLS is never called without it: no fetcher for it means no request at all.
  const send = c.tls ? tlsFetch?.(c.tls, c.tokenUrl) : fetch;
  if (!send) return new ExchangeFailure('credential_unavailable', `${where} needs TLS this proxy was not given`);
  const { form, headers } = await tokenRequest(c, input, now);
  let res: Response;
  try {
    res = await send(c.tokenUrl, {
      method: 'POST',
      headers,
      body: form.toString(),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch {
    return new ExchangeFailure('credential_unavailable', `${where} could not be reached`);
  }
  let json: Record<string, unknown> = {};
  try {
    json = (await res.json()) as Record<string, unknown>;
  } catch {
    /* not JSON: judged by status below */
  }
  // Only the OAuth error code is repeated: descriptions may echo what was sent.
  const error = typeof json.error === 'string' && /^[a-z_]{1,64}$/.test(json.error) ? json.error : '';
  if (!res.ok) {
    const code = CLIENT_ERRORS.has(error) && res.status === 400 ? 'invalid_token' : 'credential_unavailable';
    return new ExchangeFailure(code, `${where} refused the exchange: ${res.status}${error ? ` (${error})` : ''}`);
  }
  const value = json.access_token;
  if (typeof value !== 'string' || value === '')
    return new ExchangeFailure('credential_unavailable', `${where} answered without an access_token`);
  const expiresIn = Number(json.expires_in);
  const lifeS = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : c.cacheDefaultTtlSeconds;
  return tokenLiving(value, now, lifeS * 1000);
}
