// MCP as an OAuth protected resource: token checks on the MCP endpoint, discovery documents,
// client registration and the IdpD / IdpF bridges. The proxy runtime calls handle() first, then
// authenticate() for requests to the MCP endpoint.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { ProblemError } from '../../problem.js';
import { createClientMetadataDocuments, type DocumentDeps } from './client-metadata.js';
import { createKeySource, parseKeySet } from './jwks-cache.js';
import type { JwksTlsFetch } from './jwks-fetch.js';
import { baseUrl, corsHeaders, sendError, sendJson, sendPreflight } from './http.js';
import {
  authorizationServerMetadata,
  authorizePath,
  createUpstreamMetadata,
  oauthPrefix,
  protectedResourceMetadata,
  protectedResourcePath,
  registrationPath,
  tokenPath,
} from './metadata.js';
import { handleAuthorize, handleRegistration, handleToken, type EndpointDeps } from './oauth-endpoints.js';
import { notAcceptedIssuer, providersVerifier, readCredential, removeCredential, type Location } from './http-jwt.js';
import { planProvider } from './provider.js';
import type { McpAuthSettings } from './settings.js';
import { createTokenVerifier, type Verify, type VerifyResult } from './token-verifier.js';

export type { McpAuthSettings, McpProviderName } from './settings.js';
export {
  compileAuthorization,
  compileStandaloneRules,
  type Authorizer,
  type AuthorizationContext,
  type AuthorizationRule,
} from './authorization.js';

export interface McpAuthResult {
  claims: Record<string, unknown> | null;
}

export interface McpAuth {
  /** Discovery, registration and proxied OAuth endpoints (and their CORS preflights); true when it answered. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** The exact paths handle() answers. */
  readonly paths: readonly string[];
  /**
   * For MCP requests: the verified claims (null when optional/permissive mode let an unauthenticated request
   * through), or null after it answered 401 itself; a plain value for a token verified before.
   */
  authenticate(req: IncomingMessage, res: ServerResponse): McpAuthResult | null | Promise<McpAuthResult | null>;
  close(): void;
}

export interface McpAuthDeps {
  log: Logger;
  fetch?: typeof fetch;
  now?: () => number;
  /** Minimum time between two signing-key fetches (unknown kid, failures). */
  jwksCooldownMs?: number;
  /** Named as the source of configuration problems (file name, object); default `config`. */
  source?: string;
  /** Tests only: where Client ID Metadata Documents may be fetched from (default public addresses) and a CA. */
  metadataDocuments?: Pick<DocumentDeps, 'allowAddress' | 'ca'>;
  /** Key fetches with the TLS of a `jwks.backendRef` (settings.jwksTls, JwtProvider.jwksTls). */
  tlsFetch?: JwksTlsFetch;
}

const where = 'mcp.policies.mcpAuthentication';

function validate(s: McpAuthSettings): void {
  const bad = (path: string, message: string): never => {
    throw new ProblemError([{ source: 'config', path: `${where}.${path}`, message }]);
  };
  if (!['strict', 'optional', 'permissive'].includes(s.mode))
    bad('mode', `must be one of strict, optional, permissive, got ${JSON.stringify(s.mode)}`);
  if (!s.mcpPath.startsWith('/')) bad('mcpPath', `must start with "/", got ${JSON.stringify(s.mcpPath)}`);
  if (s.resourceMetadata?.resource !== undefined && !URL.canParse(s.resourceMetadata.resource)) {
    bad('resourceMetadata.resource', `must be an absolute URL, got ${JSON.stringify(s.resourceMetadata.resource)}`);
  }
}

export function createMcpAuth(settings: McpAuthSettings, deps: McpAuthDeps): McpAuth {
  try {
    return build(settings, deps);
  } catch (err) {
    if (err instanceof ProblemError && deps.source)
      throw new ProblemError(err.problems.map((p) => ({ ...p, source: deps.source ?? p.source })));
    throw err;
  }
}

type EndpointRoute = { methods: string; run(req: IncomingMessage, res: ServerResponse): Promise<void> };
type UpstreamMetadata = ReturnType<typeof createUpstreamMetadata>;
type Plan = ReturnType<typeof planProvider>;

function build(settings: McpAuthSettings, deps: McpAuthDeps): McpAuth {
  validate(settings);
  const plan = planProvider(settings);
  const doFetch = deps.fetch ?? fetch;
  const now = deps.now ?? Date.now;
  const log = deps.log.child({ component: 'mcp-auth', issuer: settings.issuer });
  const upstream = createUpstreamMetadata(plan.discoveryUrls, { fetch: doFetch, now, log });
  const keys = keySourceOf(settings, plan, upstream, {
    fetch: doFetch,
    now,
    log,
    cooldownMs: deps.jwksCooldownMs,
    tlsFetch: deps.tlsFetch,
  });
  const verify = anyProvider(
    createTokenVerifier({ issuer: settings.issuer, audiences: settings.audiences, keys, now }),
    settings,
    { ...deps, log, source: deps.source ?? 'config' },
  );
  const location = settings.location ?? bearer;
  // Only IdpF's authorize and token go through the gateway, so only there can it accept a document client id.
  const documents =
    plan.kind === 'idpf' ? createClientMetadataDocuments({ now, log, ...deps.metadataDocuments }) : undefined;
  const endpointDeps: EndpointDeps = {
    documents,
    settings,
    plan,
    fetch: doFetch,
    now,
    log,
    async upstreamEndpoint(name) {
      if (plan.kind !== 'idpf') throw new Error('only IdpF endpoints are proxied');
      const doc = await upstream.get().catch(() => ({}) as Record<string, unknown>);
      const fromDoc = doc[name];
      if (typeof fromDoc === 'string' && URL.canParse(fromDoc)) return fromDoc;
      return name === 'authorization_endpoint' ? plan.authorizeUrl : plan.tokenUrl;
    },
  };
  const resource = settings.resourceMetadata?.resource;
  const prPath = protectedResourcePath(settings.mcpPath);
  const challenge = (req: IncomingMessage): string => `Bearer resource_metadata="${baseUrl(req, resource)}${prPath}"`;
  const routes = endpointRoutes(settings, plan, upstream, endpointDeps);
  const settle = (req: IncomingMessage, res: ServerResponse, result: VerifyResult): McpAuthResult | null => {
    // preserveToken is false on MCP routes: nothing after authentication (rules, guardrails, targets) sees the token.
    removeCredential(req, location);
    if (result.ok) return { claims: result.claims };
    log.debug({ reason: result.description }, 'bearer token rejected');
    if (settings.mode === 'permissive') return { claims: null };
    sendError(res, 'invalid_token', result.description, {
      'www-authenticate': `${challenge(req)}, error="invalid_token", error_description="${result.description}"`,
    });
    return null;
  };
  return {
    handle: (req, res) => answerEndpoint(routes, req, res, log),
    paths: Object.keys(routes),
    authenticate(req, res) {
      const token = readCredential(req, location);
      if (!token) {
        if (settings.mode !== 'strict') return { claims: null };
        sendError(res, 'unauthorized', 'JWT token required', { 'www-authenticate': challenge(req) });
        return null;
      }
      const result = verify(token, req.socket);
      return result instanceof Promise ? result.then((r) => settle(req, res, r)) : settle(req, res, result);
    },
    close() {
      // The document fetcher's keep-alive sockets are the only resource; caches are plain maps.
      void documents?.close();
    },
  };
}

const bearer: Location = { header: 'authorization', prefix: 'Bearer ', queryParameter: '', cookie: '', expression: '' };

/** The first provider's check, then (for a token it did not issue) every further provider's, as generic JWT auth tries them. */
function anyProvider(first: Verify, settings: McpAuthSettings, deps: McpAuthDeps & { source: string }): Verify {
  const more = settings.moreProviders ?? [];
  if (more.length === 0) return first;
  const others = providersVerifier(more, deps, 'spec.traffic.jwtAuthentication.providers', 1);
  return async (token, conn) => {
    const result = await first(token, conn);
    if (result.ok) return result;
    const other = await others(token, conn);
    return other.ok || other.description !== notAcceptedIssuer ? other : result;
  };
}

/** Signing keys: the inline set when given, else the plan's URL, else the provider metadata's `jwks_uri`. */
function keySourceOf(
  settings: McpAuthSettings,
  plan: Plan,
  upstream: UpstreamMetadata,
  deps: {
    fetch: typeof fetch;
    now: () => number;
    log: Logger;
    cooldownMs: number | undefined;
    tlsFetch: JwksTlsFetch | undefined;
  },
) {
  let inline;
  if (settings.jwksInline !== undefined) {
    try {
      inline = parseKeySet(JSON.parse(settings.jwksInline));
    } catch (err) {
      throw new ProblemError([{ source: 'config', path: `${where}.jwksInline`, message: (err as Error).message }]);
    }
  }
  const jwksUrl = plan.jwksUrl;
  const tls = settings.jwksTls;
  const viaTls = tls && jwksUrl ? deps.tlsFetch?.(tls, jwksUrl) : undefined;
  // Never fetched without the TLS it names (keys through a backendRef): a configuration problem instead.
  if (tls && !viaTls)
    throw new ProblemError([
      { source: 'config', path: `${where}.jwks`, message: 'TLS key fetches are not available here' },
    ]);
  return createKeySource({
    inline,
    url: jwksUrl
      ? () => Promise.resolve(jwksUrl)
      : async () => {
          const doc = await upstream.get();
          if (typeof doc.jwks_uri !== 'string') throw new Error('the provider metadata has no jwks_uri');
          return doc.jwks_uri;
        },
    fetch: viaTls ?? deps.fetch,
    now: deps.now,
    log: deps.log,
    cooldownMs: deps.cooldownMs,
    ...(settings.jwksCacheSeconds ? { maxAgeMs: settings.jwksCacheSeconds * 1000 } : {}),
  });
}

/** Path → the discovery, registration and (IdpF) proxied OAuth endpoint served there. */
function endpointRoutes(
  settings: McpAuthSettings,
  plan: Plan,
  upstream: UpstreamMetadata,
  endpointDeps: EndpointDeps,
): Record<string, EndpointRoute> {
  const resource = settings.resourceMetadata?.resource;
  const routes: Record<string, EndpointRoute> = {};
  const prRoute: EndpointRoute = {
    methods: 'GET, OPTIONS',
    run: (req, res) => {
      sendJson(res, 200, protectedResourceMetadata(settings, baseUrl(req, resource)), corsHeaders);
      return Promise.resolve();
    },
  };
  routes[protectedResourcePath(settings.mcpPath)] = prRoute;
  routes['/.well-known/oauth-protected-resource'] = prRoute;
  const asRoute: EndpointRoute = {
    methods: 'GET, OPTIONS',
    run: async (req, res) => {
      let doc;
      try {
        doc = await upstream.get();
      } catch {
        sendError(res, 'temporarily_unavailable', 'The identity provider metadata is unavailable', corsHeaders);
        return;
      }
      sendJson(res, 200, authorizationServerMetadata(plan, doc, baseUrl(req, resource)), corsHeaders);
    },
  };
  for (const p of [oauthPrefix, `${oauthPrefix}${settings.mcpPath === '/' ? '' : settings.mcpPath}`])
    routes[p] = asRoute;
  routes[registrationPath] = {
    methods: 'POST, OPTIONS',
    run: (req, res) => handleRegistration(req, res, endpointDeps),
  };
  if (plan.kind === 'idpf') {
    routes[authorizePath] = { methods: 'GET, OPTIONS', run: (req, res) => handleAuthorize(req, res, endpointDeps) };
    routes[tokenPath] = { methods: 'POST, OPTIONS', run: (req, res) => handleToken(req, res, endpointDeps) };
  }
  return routes;
}

/** Answers a request for one of the endpoints (preflight, 405, or the endpoint itself); false when the path is none of them. */
async function answerEndpoint(
  routes: Record<string, EndpointRoute>,
  req: IncomingMessage,
  res: ServerResponse,
  log: Logger,
): Promise<boolean> {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
  if (!route) return false;
  const method = req.method ?? 'GET';
  if (method === 'OPTIONS') {
    sendPreflight(req, res, route.methods);
    return true;
  }
  const allowed = route.methods.split(', ');
  if (!allowed.includes(method) && !(method === 'HEAD' && allowed.includes('GET'))) {
    sendError(res, 'method_not_allowed', `${method} is not allowed on ${path}`, {
      ...corsHeaders,
      allow: route.methods,
    });
    return true;
  }
  try {
    await route.run(req, res);
  } catch (err) {
    log.error({ path, err: (err as Error).message }, 'auth endpoint failed');
    if (!res.headersSent) sendError(res, 'server_error', 'The gateway could not answer this request', corsHeaders);
    else res.destroy();
  }
  return true;
}
