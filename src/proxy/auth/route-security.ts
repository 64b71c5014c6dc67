// Wires the auth module into the proxy runtime: one RouteSecurity per IR route, built from the
// route's effective (already merged) policy each time a snapshot is applied.
import type { Logger } from 'pino';
import { resourcesOf } from '../../ir/load.js';
import type { McpAuthentication, Route, Snapshot } from '../../ir/types.js';
import { ProblemError } from '../../problem.js';
import type { RouteSecurity, RouteSecurityFactory } from './hooks.js';
import { routeMatchesOf } from '../http/route-match.js';
import { compileAuthorization, ruleActions, type AuthorizationRule } from './authorization.js';
import { createApiKeyAuth } from './http-api-key.js';
import { createBasicAuth } from './http-basic.js';
import { createHttpJwtAuth } from './http-jwt.js';
import { jwksTlsFetcher } from './jwks-fetch.js';
import { createMcpAuth, type McpAuthDeps } from './index.js';
import type { McpAuthSettings, McpProviderName } from './settings.js';

const modes = {
  AUTHENTICATION_MODE_UNSPECIFIED: 'strict',
  STRICT: 'strict',
  OPTIONAL: 'optional',
  PERMISSIVE: 'permissive',
} as const;

/** The path the MCP endpoint is mounted at: the route's first exact or prefix match, else `/mcp`. */
export function mcpPathOf(route: Route): string {
  for (const { path: m } of routeMatchesOf(route)) {
    if (m?.kind === 'exact' && m.exact) return m.exact;
    if (m?.kind === 'prefix' && m.prefix) return m.prefix.replace(/\/$/, '') || '/';
  }
  return '/mcp';
}

/** IR → module settings. Empty IR strings mean "unset". */
export function settingsFromIr(a: McpAuthentication, mcpPath: string, source: string): McpAuthSettings {
  const rm = a.resourceMetadata;
  let extra: Record<string, unknown> | undefined;
  if (rm?.extraJson) {
    try {
      extra = JSON.parse(rm.extraJson) as Record<string, unknown>;
    } catch {
      throw new ProblemError([
        {
          source: source.replace(/^file /, ''),
          path: 'mcp.policies.mcpAuthentication.resourceMetadata',
          message: 'extra members must be a JSON object',
        },
      ]);
    }
  }
  const provider = a.provider === 'MCP_IDP_UNSPECIFIED' ? undefined : (a.provider.toLowerCase() as McpProviderName);
  return {
    mode: modes[a.mode],
    issuer: a.issuer,
    ...(a.audiences.length > 0 ? { audiences: a.audiences } : {}),
    ...(provider ? { provider } : {}),
    ...(a.clientId ? { clientId: a.clientId } : {}),
    ...(a.clientSecret ? { clientSecret: a.clientSecret } : {}),
    ...(rm
      ? {
          resourceMetadata: {
            ...(rm.resource ? { resource: rm.resource } : {}),
            ...(rm.scopesSupported.length > 0 ? { scopesSupported: rm.scopesSupported } : {}),
            ...(rm.bearerMethodsSupported.length > 0 ? { bearerMethodsSupported: rm.bearerMethodsSupported } : {}),
            ...(extra ? { extra } : {}),
          },
        }
      : {}),
    ...(a.jwksUrl ? { jwks: a.jwksUrl } : {}),
    ...(a.jwksInline ? { jwksInline: a.jwksInline } : {}),
    ...(a.jwksCacheSeconds ? { jwksCacheSeconds: a.jwksCacheSeconds } : {}),
    ...(a.jwksTls ? { jwksTls: a.jwksTls } : {}),
    ...(a.moreProviders.length > 0 ? { moreProviders: a.moreProviders } : {}),
    ...(a.location ? { location: a.location } : {}),
    mcpPath,
  };
}

/** The factory `ProxyRuntime` / `startStandalone` take as `security`. */
export function createRouteSecurity(deps: Omit<McpAuthDeps, 'log'> = {}): RouteSecurityFactory {
  const tlsFetchFor = jwksTlsFetcher();
  return (route: Route, log: Logger): RouteSecurity => {
    const out: RouteSecurity = {};
    const policy = route.policy;
    // Provenance says where the policy came from (`file config.yaml`, `GwPolicy ns/name`).
    const authSource = route.provenance.mcp_authentication ?? `route ${route.name}`;
    if (policy?.mcpAuthentication) {
      out.auth = createMcpAuth(settingsFromIr(policy.mcpAuthentication, mcpPathOf(route), authSource), {
        ...deps,
        log,
        source: authSource.replace(/^file /, ''),
        tlsFetch: tlsFetchFor(log),
      });
    } else if (policy?.jwtAuthentication) {
      const source = route.provenance['traffic.jwtAuthentication'] ?? `route ${route.name}`;
      out.auth = createHttpJwtAuth(policy.jwtAuthentication, { ...deps, log, source, tlsFetch: tlsFetchFor(log) });
    } else if (policy?.basicAuthentication) {
      out.auth = createBasicAuth(policy.basicAuthentication);
    } else if (policy?.apiKeyAuthentication) {
      out.auth = createApiKeyAuth(policy.apiKeyAuthentication);
    }
    if (policy?.authorization && policy.authorization.rules.length > 0) {
      const rules: AuthorizationRule[] = policy.authorization.rules.map((r) => ({
        expressions: r.expressions,
        action: ruleActions[r.action],
      }));
      const source = route.provenance.authorization ?? `route ${route.name}`;
      const where = source.startsWith('file ') ? 'mcp.policies.authorization.rules' : 'authorization.rules';
      const authorizer = compileAuthorization(rules, where, source.replace(/^file /, ''));
      out.authorize = (ctx) => authorizer.allows(ctx);
    }
    return out;
  };
}

/** Builds every route's security once without serving, so `--validate-only` reports bad auth settings and CEL rules. */
export function checkRouteSecurity(snapshot: Snapshot, log: Logger): void {
  const factory = createRouteSecurity();
  for (const route of resourcesOf(snapshot, 'route').values()) factory(route, log);
}
