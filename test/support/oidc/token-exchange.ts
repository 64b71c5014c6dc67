// The token-exchange (RFC 8693) and jwt-bearer (RFC 7523) grants on a real oidc-provider, added through
// its documented extension point `registerGrantType`. The provider authenticates the client itself
// (client_secret_basic, client_secret_post or private_key_jwt, as each client's metadata says) before
// the grant runs; the grant verifies the subject (and actor) JWT against the keys the test trusts and
// issues a real AccessToken of the provider. What it issued is recorded for the test to check.
import { randomUUID } from 'node:crypto';
import { createLocalJWKSet, importJWK, jwtVerify, SignJWT, type JSONWebKeySet, type JWTPayload } from 'jose';
import { makeSigningKey, startProvider, type OidcHarness, type SigningKey } from './provider.js';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type Provider from 'oidc-provider';

export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
export const ID_JAG_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';

export interface GrantOptions {
  /** Lifetime in seconds of issued tokens (`expires_in`); default 600. */
  ttlSeconds?: number;
  /** Signs ID-JAGs (identity assertion JWT authorization grants) when one is asked for; unset refuses them. */
  idJag?: { key: SigningKey; issuer: string };
  /** jwt-bearer: the `aud` an assertion must carry (the resource authorization server's issuer). */
  assertionAudience?: string;
}

export interface Issued {
  token: string;
  grant: string;
  clientId: string;
  sub: string;
  /** The actor's subject (token exchange with actor_token). */
  act?: string;
  audience: string[];
  scope: string;
  /** Every form parameter of the request, tokens included (the test's own, never logged by the proxy). */
  params: Record<string, unknown>;
}

export interface ExchangeGrants {
  issued: Issued[];
  /** Lifetime in seconds of issued tokens (`expires_in`). */
  ttlSeconds: number;
}

/**
 * Registers both grants on `provider`. Subject, actor and assertion JWTs must verify against `trusted`
 * (the user IdP's keys). Clients need the grant in their `grant_types`.
 */
export function registerExchangeGrants(
  provider: Provider,
  trusted: JSONWebKeySet,
  o: GrantOptions = {},
): ExchangeGrants {
  const keys = createLocalJWKSet(trusted);
  const out: ExchangeGrants = { issued: [], ttlSeconds: o.ttlSeconds ?? 600 };
  const verified = async (token: unknown, what: string, audience?: string): Promise<JWTPayload> => {
    if (typeof token !== 'string' || token === '') throw new errors.InvalidRequest(`${what} is required`);
    try {
      return (await jwtVerify(token, keys, audience ? { audience } : {})).payload;
    } catch {
      throw new errors.InvalidGrant(`${what} is not valid`);
    }
  };
  const issue = async (
    ctx: KoaContextWithOIDC,
    grant: string,
    subject: JWTPayload,
    actor?: JWTPayload,
  ): Promise<void> => {
    const params = ctx.oidc.params as Record<string, unknown>;
    const audience = [params.audience ?? []].flat().map(String);
    const client = ctx.oidc.client;
    if (!client) throw new errors.InvalidClient('client authentication failed');
    const jag = params.requested_token_type === ID_JAG_TYPE;
    if (jag && !o.idJag) throw new errors.InvalidRequest('this server issues no ID-JAG');
    const claims = { sub: subject.sub, aud: audience[0], client_id: client.clientId, scope: params.scope };
    const token =
      jag && o.idJag
        ? await idJag(o.idJag, { ...claims, resource: params.resource }, out.ttlSeconds)
        : await new provider.AccessToken({
            accountId: String(subject.sub),
            client,
            scope: typeof params.scope === 'string' ? params.scope : undefined,
            gty: grant === TOKEN_EXCHANGE ? 'token_exchange' : 'jwt_bearer',
            expiresIn: out.ttlSeconds,
          }).save();
    out.issued.push({
      token,
      grant,
      clientId: client.clientId,
      sub: String(subject.sub),
      ...(actor ? { act: String(actor.sub) } : {}),
      audience,
      scope: typeof params.scope === 'string' ? params.scope : '',
      params: { ...params },
    });
    ctx.body = {
      access_token: token,
      issued_token_type: jag ? ID_JAG_TYPE : ACCESS_TOKEN_TYPE,
      token_type: jag ? 'N_A' : 'Bearer',
      expires_in: out.ttlSeconds,
      ...(typeof params.scope === 'string' ? { scope: params.scope } : {}),
    };
  };

  provider.registerGrantType(
    TOKEN_EXCHANGE,
    async (ctx: KoaContextWithOIDC) => {
      const p = ctx.oidc.params as Record<string, unknown>;
      if (p.subject_token_type !== ACCESS_TOKEN_TYPE && p.subject_token_type !== ID_TOKEN_TYPE)
        throw new errors.InvalidRequest('unsupported subject_token_type');
      const subject = await verified(p.subject_token, 'subject_token');
      const actor = p.actor_token ? await verified(p.actor_token, 'actor_token') : undefined;
      if (actor && p.actor_token_type !== ACCESS_TOKEN_TYPE)
        throw new errors.InvalidRequest('unsupported actor_token_type');
      await issue(ctx, TOKEN_EXCHANGE, subject, actor);
    },
    [
      'subject_token',
      'subject_token_type',
      'actor_token',
      'actor_token_type',
      'requested_token_type',
      'audience',
      'resource',
      'scope',
      'tenant',
    ],
    ['audience', 'resource'],
  );
  provider.registerGrantType(
    JWT_BEARER,
    async (ctx: KoaContextWithOIDC) => {
      const p = ctx.oidc.params as Record<string, unknown>;
      await issue(ctx, JWT_BEARER, await verified(p.assertion, 'assertion', o.assertionAudience));
    },
    ['assertion', 'scope', 'audience'],
    ['audience'],
  );
  return out;
}

/** An identity assertion JWT authorization grant: who the user is, for which client, at which server. */
async function idJag(
  signer: { key: SigningKey; issuer: string },
  claims: Record<string, unknown>,
  ttlSeconds: number,
): Promise<string> {
  return new SignJWT({ ...claims, jti: randomUUID() })
    .setProtectedHeader({ alg: 'RS256', kid: signer.key.kid, typ: 'oauth-id-jag+jwt' })
    .setIssuer(signer.issuer)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(await importJWK(signer.key.privateJwk, 'RS256'));
}

/** An oidc-provider with both grants, one client per client authentication, and the user IdP whose tokens it exchanges. */
export interface ExchangeServer {
  as: OidcHarness;
  grants: ExchangeGrants;
  /**
   * With `crossApp`: `as` also signs ID-JAGs, and this second provider (the resource's authorization server)
   * accepts them as jwt-bearer assertions addressed to its issuer; client `gw-at-ras` (client_secret_post).
   */
  ras?: { as: OidcHarness; grants: ExchangeGrants };
  /** The user IdP's issuer and its public keys (what the gateway's jwtAuthentication trusts). */
  userIssuer: string;
  userJwks: JSONWebKeySet;
  /** A token of the user IdP for `sub`. */
  userToken(sub: string, claims?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

/** Client `gw-basic` authenticates with client_secret_basic and this secret. */
export const EXCHANGE_BASIC_SECRET = 'basic-secret-3f9a1c';
/** Client `gw-at-ras` of the resource's authorization server authenticates with client_secret_post and this secret. */
export const EXCHANGE_RAS_SECRET = 'ras-secret-0b5e42';

/** Starts the exchange server of the edge tests (MCP targets, LLM providers, GwModels). */
export async function startExchangeServer(
  userIssuer = 'https://users.example',
  o: { crossApp?: boolean } = {},
): Promise<ExchangeServer> {
  const users = await makeSigningKey('users');
  const userKey = await importJWK(users.privateJwk, 'RS256');
  const asKey = await makeSigningKey('as');
  const meta = { grant_types: [TOKEN_EXCHANGE, JWT_BEARER], response_types: [], redirect_uris: [] };
  const as = await startProvider({
    issuerPath: '/as',
    routes: { authorization: '/as/auth', token: '/as/token', jwks: '/as/jwks' },
    clients: [
      {
        ...meta,
        client_id: 'gw-basic',
        client_secret: EXCHANGE_BASIC_SECRET,
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    key: asKey,
    resource: { default: 'https://tools.example', audience: (i) => i, scope: 'tools.read' },
  });
  const grants = registerExchangeGrants(
    as.provider,
    { keys: [users.publicJwk] },
    o.crossApp ? { idJag: { key: asKey, issuer: as.issuer } } : {},
  );
  const ras = o.crossApp ? await startResourceServer(meta, asKey) : undefined;
  return {
    as,
    grants,
    ...(ras ? { ras } : {}),
    userIssuer,
    userJwks: { keys: [users.publicJwk] },
    userToken: (sub, claims = {}) =>
      new SignJWT({ sub, ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: 'users' })
        .setIssuer(userIssuer)
        .setIssuedAt()
        .setExpirationTime('2h')
        .sign(userKey),
    close: async () => {
      await as.close();
      await ras?.as.close();
    },
  };
}

/** The resource's authorization server of cross-app access: it trusts ID-JAGs `idp` signs. */
async function startResourceServer(
  meta: { grant_types: string[]; response_types: never[]; redirect_uris: never[] },
  idp: SigningKey,
): Promise<{ as: OidcHarness; grants: ExchangeGrants }> {
  const ras = await startProvider({
    issuerPath: '/ras',
    routes: { authorization: '/ras/auth', token: '/ras/token', jwks: '/ras/jwks' },
    clients: [
      {
        ...meta,
        client_id: 'gw-at-ras',
        client_secret: EXCHANGE_RAS_SECRET,
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    key: await makeSigningKey('ras'),
    resource: { default: 'https://tools.example', audience: (i) => i, scope: 'tools.read' },
  });
  const grants = registerExchangeGrants(ras.provider, { keys: [idp.publicJwk] }, { assertionAudience: ras.issuer });
  return { as: ras, grants };
}

/**
 * `backend.auth.crossAppAccess` (flow YAML) against `x` (started with `crossApp`): the ID-JAG from `x.as` with
 * client_secret_basic, the access token from `x.ras` with client_secret_post (Secrets `as-basic`, `ras-client`).
 */
export function crossAppAccessYaml(x: ExchangeServer): string {
  const ras = x.ras?.as;
  if (!ras) throw new Error('the exchange server was started without crossApp');
  return `crossAppAccess: {identityProvider: {url: "${x.as.origin}", path: /as/token, clientAuth: {clientId: gw-basic, secretRef: {name: as-basic}}}, resourceAuthorizationServer: {url: "${ras.origin}", path: /ras/token, clientAuth: {clientId: gw-at-ras, method: ClientSecretPost, secretRef: {name: ras-client}}}, audience: "${ras.issuer}", scopes: [tools.read], accessTokenScopes: [tools.read]}`;
}
