// Credentials the proxy obtains or mints per request for an upstream (`backend.auth.oauthTokenExchange`,
// `backend.auth.jwtSign`), placed where the policy says. An exchange takes the subject token the client
// authenticated with (or the one `subjectToken.source` names) and, when it cannot be had, the request is
// answered here: the client's own token is never sent upstream in its place. Behaviour: docs/auth.md
// "Backend identities".
import { decodeJwt } from 'jose/jwt/decode';
import type { AiCredential__Output as AiCredential } from '../../ir/gen/gw/ir/v1/AiCredential.js';
import type { CredentialLocation__Output as CredentialLocation } from '../../ir/gen/gw/ir/v1/CredentialLocation.js';
import type { TokenExchangeCredential__Output as TokenExchangeCredential } from '../../ir/gen/gw/ir/v1/TokenExchangeCredential.js';
import { compileCel, type CelBindings, type CompiledCel } from '../policy/cel/env.js';
import type { JwksTlsFetch } from './jwks-fetch.js';
import { signedAssertion } from './jwt-sign.js';
import { ExchangeFailure, TokenExchanges, type ExchangeInput } from './token-exchange.js';

/** Who is calling, as authentication left it: what the CEL sources and the default subject token read. */
export interface Caller {
  /** The Authorization header as the client sent it, before authentication removed it. */
  authorization?: string;
  claims?: Record<string, unknown> | null;
  apiKey?: Record<string, unknown>;
}

/** The upstream request's path and headers, as the credential changes them. */
export interface Placed {
  path: string;
  headers: Record<string, string | string[]>;
}

/** What CEL's `request` sees of the request an identity is obtained for. */
export type CelRequest = {
  method: string;
  path: string;
  headers: Record<string, string>;
};

/** A token for the upstream, where it goes, and the request's own tokens it replaces (never forwarded). */
export interface Obtained {
  token: string;
  location: CredentialLocation | null | undefined;
  spent: string[];
}

/** Why the request cannot go upstream with its credential; `code` decides the status (401 or 502). */
export { ExchangeFailure as IdentityFailure } from './token-exchange.js';

const IDENTITY_VARIABLES = ['request', 'jwt', 'apiKey'] as const;

export const isIdentity = (c: AiCredential | null | undefined): boolean =>
  c?.kind === 'tokenExchange' || c?.kind === 'jwtSign' || c?.kind === 'crossAppAccess';

/** Where credential `c` puts its token (unset: `Authorization: Bearer`). */
export function identityLocation(c: AiCredential | null | undefined): CredentialLocation | null | undefined {
  if (c?.kind === 'jwtSign') return c.jwtSign?.location;
  if (c?.kind === 'crossAppAccess') return c.crossAppAccess?.identityProvider?.location;
  return c?.tokenExchange?.location;
}

export class BackendIdentities {
  readonly exchanges: TokenExchanges;
  private readonly compiled = new WeakMap<TokenExchangeCredential, Map<string, CompiledCel>>();

  /** `tlsFetch` calls token endpoints named by a backendRef with their backend's TLS (jwks-fetch.ts). */
  constructor(
    private readonly clock: () => number,
    tlsFetch?: JwksTlsFetch,
  ) {
    this.exchanges = new TokenExchanges(clock, tlsFetch);
  }

  /**
   * `out` with the token of credential `c` placed (`c` is a tokenExchange, crossAppAccess or jwtSign credential),
   * and the tokens given for the exchange taken off it. `request` is what CEL's `request` sees. The one way every
   * edge (HTTP, dynamic forward proxy, MCP target, LLM provider, GwModel) gets a per-request identity.
   */
  async place(
    c: AiCredential,
    out: Placed,
    caller: Caller,
    request: CelRequest,
    who: string,
  ): Promise<Placed | ExchangeFailure> {
    const got = await this.obtain(c, caller, request, who);
    if (got instanceof ExchangeFailure) return got;
    return placed({ path: out.path, headers: withoutSpent(out.headers, got.spent) }, got.token, got.location);
  }

  /** The token of credential `c` for this request, where it goes, and the request's tokens it was exchanged for. */
  async obtain(c: AiCredential, caller: Caller, request: CelRequest, who: string): Promise<Obtained | ExchangeFailure> {
    if (c.kind === 'jwtSign' && c.jwtSign) {
      const token = await signedAssertion(c.jwtSign, this.clock());
      return { token, location: c.jwtSign.location, spent: [] };
    }
    const x = c.kind === 'crossAppAccess' ? c.crossAppAccess : undefined;
    const e = x ? x.identityProvider : c.tokenExchange;
    if (!e) return new ExchangeFailure('credential_unavailable', `${who} has no credential`);
    const bindings: CelBindings = {
      request,
      ...(caller.claims ? { jwt: caller.claims } : {}),
      ...(caller.apiKey ? { apiKey: caller.apiKey } : {}),
    };
    const input = this.input(e, caller, bindings, who);
    if (input instanceof ExchangeFailure) return input;
    let token = await this.exchanges.token(e, input, who);
    // Cross-app access: the ID-JAG the identity provider issued is the assertion at the resource's server.
    if (x?.resourceServer && typeof token === 'string')
      token = await this.exchanges.token(x.resourceServer, { subject: token, params: {} }, who);
    if (token instanceof ExchangeFailure) return token;
    return { token, location: e.location, spent: input.actor ? [input.subject, input.actor] : [input.subject] };
  }

  /** The subject and actor tokens and parameters of this request, or why it has none the policy can use. */
  private input(
    e: TokenExchangeCredential,
    caller: Caller,
    bindings: CelBindings,
    who: string,
  ): ExchangeInput | ExchangeFailure {
    const refuse = (why: string): ExchangeFailure => new ExchangeFailure('invalid_token', `${who}: ${why}`);
    const subject = e.subjectSource
      ? this.evaluate(e, e.subjectSource, bindings)
      : /^Bearer\s+(\S+)\s*$/i.exec(caller.authorization ?? '')?.[1];
    if (!subject) return refuse('the request carries no subject token for the token exchange');
    let actor: string | undefined;
    if (e.actorSource) {
      actor = this.evaluate(e, e.actorSource, bindings);
      if (!actor) return refuse('the request carries no actor token for the token exchange');
      if (e.mayActRequired) {
        const why = mayActProblem(subject, actor, e.subjectSource ? undefined : caller.claims);
        if (why) return refuse(why);
      }
    }
    const params: Record<string, string> = {};
    for (const k of Object.keys(e.additionalParams).sort()) {
      const v = this.evaluate(e, e.additionalParams[k] ?? '', bindings);
      if (v === undefined) return refuse(`additionalParams.${k} yields no string for this request`);
      params[k] = v;
    }
    return { subject, ...(actor !== undefined ? { actor } : {}), params };
  }

  private evaluate(e: TokenExchangeCredential, source: string, bindings: CelBindings): string | undefined {
    let byCel = this.compiled.get(e);
    if (!byCel) {
      byCel = new Map();
      this.compiled.set(e, byCel);
    }
    let cel = byCel.get(source);
    if (!cel) {
      cel = compileCel(source, IDENTITY_VARIABLES);
      byCel.set(source, cel);
    }
    const v = cel.evaluate(bindings);
    return typeof v === 'string' && v !== '' ? v : undefined;
  }
}

/**
 * RFC 8693 §4.4: the subject token's `may_act` claim must name the actor (its `sub`, and `iss` when it
 * names one). `validated` are the claims authentication verified, when the subject token is the client's.
 */
function mayActProblem(
  subject: string,
  actor: string,
  validated: Record<string, unknown> | null | undefined,
): string | undefined {
  let subjectClaims: Record<string, unknown>;
  let actorClaims: Record<string, unknown>;
  try {
    subjectClaims = validated ?? decodeJwt(subject);
    actorClaims = decodeJwt(actor);
  } catch {
    return 'mayAct is required and the subject or actor token is not a JWT';
  }
  const mayAct = subjectClaims.may_act;
  if (!mayAct || typeof mayAct !== 'object') return 'the subject token has no may_act claim, which mayAct requires';
  const m = mayAct as Record<string, unknown>;
  if (m.sub !== actorClaims.sub || (m.iss !== undefined && m.iss !== actorClaims.iss))
    return "the subject token's may_act claim does not name the actor";
  return undefined;
}

/**
 * `headers` without the Authorization header and any header that carries one of the `spent` tokens: the tokens
 * given for an exchange stay at the proxy, whatever header brought them.
 */
export function withoutSpent<H extends string | string[]>(
  headers: Record<string, H>,
  spent: readonly string[],
): Record<string, H> {
  if (spent.length === 0) return headers;
  const out = { ...headers };
  delete out.authorization;
  for (const [k, v] of Object.entries(out))
    if (typeof v === 'string' && spent.some((t) => v === t || v.endsWith(` ${t}`))) delete out[k];
  return out;
}

/** `out` with `token` at `location` (unset: `Authorization: Bearer`). */
export function placed(out: Placed, token: string, location: CredentialLocation | null | undefined): Placed {
  const headers = { ...out.headers };
  if (!location || (!location.header && !location.queryParameter && !location.cookie)) {
    headers.authorization = `Bearer ${token}`;
    return { path: out.path, headers };
  }
  if (location.header) {
    headers[location.header.toLowerCase()] = `${location.prefix}${token}`;
    return { path: out.path, headers };
  }
  if (location.queryParameter) {
    const [p, q = ''] = out.path.split('?', 2) as [string, string?];
    const query = new URLSearchParams(q);
    query.set(location.queryParameter, token);
    return { path: `${p}?${query.toString()}`, headers };
  }
  const name = location.cookie;
  const kept = String(headers.cookie ?? '')
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '' && !s.startsWith(`${name}=`));
  headers.cookie = [...kept, `${name}=${token}`].join('; ');
  return { path: out.path, headers };
}
