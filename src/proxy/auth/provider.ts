// Where keys and authorization-server metadata come from, per identity provider. Pure: settings in, URLs out.
import { ProblemError } from '../../problem.js';
import type { McpAuthSettings } from './settings.js';

export type ProviderPlan =
  | { kind: 'generic'; jwksUrl?: string; discoveryUrls: string[] }
  | {
      kind: 'idpd';
      jwksUrl: string;
      discoveryUrls: string[];
      registrationUrl: string;
      api: string;
      projectId: string;
      serverId: string;
    }
  | {
      kind: 'idpf';
      jwksUrl: string;
      discoveryUrls: string[];
      tenantId: string;
      login: string;
      authorizeUrl: string;
      tokenUrl: string;
    };

const where = 'mcp.policies.mcpAuthentication';

function fail(path: string, message: string): never {
  throw new ProblemError([{ source: 'config', path: `${where}.${path}`, message }]);
}

function parseUrl(value: string, path: string): URL {
  try {
    const u = new URL(value);
    if (u.protocol !== 'https:' && u.protocol !== 'http:')
      fail(path, `must be an http(s) URL, got ${JSON.stringify(value)}`);
    return u;
  } catch (err) {
    if (err instanceof ProblemError) throw err;
    return fail(path, `must be an absolute URL, got ${JSON.stringify(value)}`);
  }
}

const trimSlash = (s: string): string => s.replace(/\/+$/, '');

/**
 * IdpD issuer `{api}/v1/apps/agentic/<project_id>/<server_id>` → project key URL
 * `{api}/<project_id>/.well-known/jwks.json`; unregistered clients are proxied to
 * `{api}/v1/mgmt/agentic/<project_id>/<server_id>/register` (the assumed management path, see docs/auth.md).
 */
export function planIdpD(issuer: string): Extract<ProviderPlan, { kind: 'idpd' }> {
  const u = parseUrl(issuer, 'issuer');
  const m = /^(.*)\/v1\/apps\/agentic\/([^/]+)\/([^/]+)\/?$/.exec(u.pathname);
  if (!m)
    fail(
      'issuer',
      `must have the form {idp_d_api}/v1/apps/agentic/<project_id>/<server_id> for provider idpd, got ${JSON.stringify(issuer)}`,
    );
  const api = u.origin + (m[1] ?? '');
  const projectId = decodeURIComponent(m[2] ?? '');
  const serverId = decodeURIComponent(m[3] ?? '');
  return {
    kind: 'idpd',
    api,
    projectId,
    serverId,
    jwksUrl: `${api}/${encodeURIComponent(projectId)}/.well-known/jwks.json`,
    discoveryUrls: [`${trimSlash(issuer)}/.well-known/openid-configuration`],
    registrationUrl: `${api}/v1/mgmt/agentic/${encodeURIComponent(projectId)}/${encodeURIComponent(serverId)}/register`,
  };
}

/**
 * IdpF issuers: v2 `{login}/<tenant_id>/v2.0` or v1 `{sts}/<tenant_id>/`. Keys, discovery and the
 * authorize / token endpoints live on the login host, which for a v1 issuer is the origin of `jwks`
 * when set (the token-service host serves none of them), else the issuer's origin.
 */
export function planIdpF(issuer: string, jwks?: string): Extract<ProviderPlan, { kind: 'idpf' }> {
  const u = parseUrl(issuer, 'issuer');
  const v2 = /^(.*)\/([^/]+)\/v2\.0\/?$/.exec(u.pathname);
  const v1 = /^(.*)\/([^/]+)\/?$/.exec(u.pathname);
  const m = v2 ?? v1;
  if (!m || !m[2])
    fail(
      'issuer',
      `must have the form {idp_f_login}/<tenant_id>/v2.0 or {idp_f_sts}/<tenant_id>/ for provider idpf, got ${JSON.stringify(issuer)}`,
    );
  const tenantId = m[2];
  let login = u.origin + (m[1] ?? '');
  if (!v2 && jwks) login = parseUrl(jwks, 'jwks').origin;
  const base = `${login}/${tenantId}`;
  return {
    kind: 'idpf',
    tenantId,
    login,
    jwksUrl: jwks ?? `${base}/discovery/v2.0/keys`,
    discoveryUrls: [`${base}/v2.0/.well-known/openid-configuration`],
    authorizeUrl: `${base}/oauth2/v2.0/authorize`,
    tokenUrl: `${base}/oauth2/v2.0/token`,
  };
}

/** RFC 8414 path-inserted form first, then OpenID Connect discovery appended to the issuer. */
export function genericDiscoveryUrls(issuer: string): string[] {
  const u = parseUrl(issuer, 'issuer');
  const path = trimSlash(u.pathname);
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}${path}/.well-known/openid-configuration`,
  ];
}

export function planProvider(s: McpAuthSettings): ProviderPlan {
  if (s.jwks !== undefined) parseUrl(s.jwks, 'jwks');
  switch (s.provider) {
    case 'idpd': {
      const p = planIdpD(s.issuer);
      return s.jwks ? { ...p, jwksUrl: s.jwks } : p;
    }
    case 'idpf':
      if (!s.clientId) fail('clientId', 'is required for provider idpf, which has no client registration endpoint');
      return planIdpF(s.issuer, s.jwks);
    default:
      return { kind: 'generic', jwksUrl: s.jwks, discoveryUrls: genericDiscoveryUrls(s.issuer) };
  }
}
