// A real OpenID provider (`oidc-provider`) on 127.0.0.1, mounted so its URLs have the IdpD or IdpF
// shape. Only the public host names are stand-ins; tokens, keys, PKCE and grants are the real thing.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider, { type ClientMetadata, type KoaContextWithOIDC } from 'oidc-provider';

export interface SigningKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

export async function makeSigningKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateJwk, publicJwk };
}

export interface OidcHarness {
  origin: string;
  issuer: string;
  jwksUrl: string;
  tokenUrl: string;
  provider: Provider;
  /** Paths the provider was asked for, in order (for asserting what the gateway called). */
  hits: string[];
  /** Requests a client-credentials token directly from the provider, like an operator would by hand. */
  clientCredentials(form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

interface ShapeOptions {
  /** Path of the issuer below the origin, e.g. `/v1/apps/agentic/P1/S1`. */
  issuerPath: string;
  /** Rewrites from public paths to the provider's own routes (prefix-free, relative to the mount). */
  routes: { authorization: string; token: string; jwks: string; registration?: string };
  /** Extra path → provider-route aliases, e.g. the OIDC discovery document under the issuer. */
  aliases?: Record<string, string>;
  clients: ClientMetadata[];
  key: SigningKey;
  /** Audience and scope of access tokens for a resource indicator (or the default resource). */
  resource: { default: string; audience: (indicator: string) => string; scope: string };
  roles?: string[];
  accountId?: string;
  /** Serve RFC 7591 registration (IdpD management API stand-in). */
  registration?: boolean;
}

async function finishInteraction(
  provider: Provider,
  req: IncomingMessage,
  res: ServerResponse,
  accountId: string,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId, clientId: String(details.params.client_id) });
  const missing = details.prompt.details;
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
    grant.addResourceScope(resource, scopes.join(' '));
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function startProvider(opts: ShapeOptions): Promise<OidcHarness> {
  const hits: string[] = [];
  const server = createServer();
  const origin = await listen(server);
  const issuer = `${origin}${opts.issuerPath}`;
  const accountId = opts.accountId ?? 'user-1';
  const provider = new Provider(issuer, {
    clients: opts.clients,
    jwks: { keys: [opts.key.privateJwk] },
    routes: {
      authorization: opts.routes.authorization,
      token: opts.routes.token,
      jwks: opts.routes.jwks,
      ...(opts.routes.registration ? { registration: opts.routes.registration } : {}),
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      registration: { enabled: opts.registration === true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => opts.resource.default,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: KoaContextWithOIDC, indicator: string) => ({
          scope: opts.resource.scope,
          audience: opts.resource.audience(indicator),
          accessTokenFormat: 'jwt',
          accessTokenTTL: 600,
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    scopes: ['openid', 'offline_access', ...opts.resource.scope.split(' ')],
    extraTokenClaims: () => (opts.roles ? { roles: opts.roles } : undefined),
    findAccount: (_ctx: KoaContextWithOIDC, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    interactions: {
      url: (_ctx: KoaContextWithOIDC, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
    },
    issueRefreshToken: () => true,
    pkce: { required: () => true },
  });
  provider.on('server_error', (_ctx, err) => console.error('oidc-provider server_error', err));
  const callback = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', origin);
    hits.push(`${req.method} ${url.pathname}`);
    const alias = opts.aliases?.[url.pathname];
    if (alias) req.url = alias + url.search;
    const interaction = /^\/interaction\/([^/]+)$/.exec(url.pathname);
    if (interaction) {
      // The user signs in and consents at once: a real interaction, finished without any page.
      finishInteraction(provider, req, res, accountId).catch((err: unknown) => {
        res.statusCode = 500;
        res.end(String(err));
      });
      return;
    }
    void callback(req, res);
  });

  const tokenUrl = `${origin}${opts.routes.token}`;
  return {
    origin,
    issuer,
    jwksUrl: `${origin}${opts.routes.jwks}`,
    tokenUrl,
    provider,
    hits,
    async clientCredentials(form) {
      const res = await fetch(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** IdpD shape: issuer `/v1/apps/agentic/<project>/<server>`, keys `/<project>/.well-known/jwks.json`, token `/oauth2/v1/apps/token`. */
export function startIdpD(o: {
  projectId: string;
  serverId: string;
  mcpUrl: string;
  clients: ClientMetadata[];
  key: SigningKey;
  roles?: string[];
}): Promise<OidcHarness> {
  const issuerPath = `/v1/apps/agentic/${o.projectId}/${o.serverId}`;
  return startProvider({
    issuerPath,
    routes: {
      authorization: '/oauth2/v1/apps/authorize',
      token: '/oauth2/v1/apps/token',
      jwks: `/${o.projectId}/.well-known/jwks.json`,
      registration: '/oauth2/v1/apps/reg',
    },
    aliases: {
      [`${issuerPath}/.well-known/openid-configuration`]: '/.well-known/openid-configuration',
      // The management path the gateway assumes for unregistered clients (docs/auth.md).
      [`/v1/mgmt/agentic/${o.projectId}/${o.serverId}/register`]: '/oauth2/v1/apps/reg',
    },
    clients: o.clients,
    key: o.key,
    registration: true,
    resource: { default: o.mcpUrl, audience: (indicator) => indicator, scope: 'read:all' },
    roles: o.roles,
  });
}

/**
 * IdpF shape: issuer `/<tenant>/v2.0` (or the v1 form `/<tenant>/`), keys `/<tenant>/discovery/v2.0/keys`,
 * v2.0 discovery, authorize and token endpoints under `/<tenant>/oauth2/v2.0/`.
 */
export function startIdpF(o: {
  tenantId: string;
  clientId: string;
  clients: ClientMetadata[];
  key: SigningKey;
  roles?: string[];
  v1?: boolean;
}): Promise<OidcHarness> {
  const issuerPath = o.v1 ? `/${o.tenantId}/` : `/${o.tenantId}/v2.0`;
  return startProvider({
    issuerPath,
    routes: {
      authorization: `/${o.tenantId}/oauth2/v2.0/authorize`,
      token: `/${o.tenantId}/oauth2/v2.0/token`,
      jwks: `/${o.tenantId}/discovery/v2.0/keys`,
    },
    aliases: { [`/${o.tenantId}/v2.0/.well-known/openid-configuration`]: '/.well-known/openid-configuration' },
    clients: o.clients,
    key: o.key,
    // v2 tokens carry the bare client id as audience, v1 tokens the application ID URI.
    resource: {
      default: `api://${o.clientId}`,
      audience: () => (o.v1 ? `api://${o.clientId}` : o.clientId),
      scope: `api://${o.clientId}/mcp.tools`,
    },
    roles: o.roles,
  });
}

/**
 * The gateway's own confidential web client at the provider, as IdpF bridging registers it: `client_secret_post`,
 * the authorization code flow with refresh (and `extraGrants`), one redirect URI.
 */
export function webClient(
  clientId: string,
  secret: string,
  redirectUrl: string,
  extraGrants: string[] = [],
): ClientMetadata {
  return {
    client_id: clientId,
    client_secret: secret,
    token_endpoint_auth_method: 'client_secret_post',
    grant_types: ['authorization_code', 'refresh_token', ...extraGrants],
    response_types: ['code'],
    redirect_uris: [redirectUrl],
  };
}
