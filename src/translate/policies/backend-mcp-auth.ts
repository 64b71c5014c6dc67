// `backend.mcp.authentication` and `backend.mcp.authorization` (a GwBackend's `policies`, a GwPolicy's `backend`)
// folded into the route's one typed policy: the proxy then checks them with the same token verifier and the
// same authorization evaluation as traffic.jwtAuthentication.mcp and traffic.authorization, never a second copy.
import type { IrRefusal } from '../../coverage/effective.js';
import type { AuthorizationRuleInput, McpAuthenticationInput, PolicyFieldsInput } from '../../ir/types.js';
import { rec, stableStringify, str, type Rec } from '../objects/read.js';

/** One route → backend edge as the routes translator built it: merged fields as canonical JSON text. */
export interface McpEdge {
  weight?: number;
  policy?: PolicyFieldsInput | null;
  targetPolicies?: Record<string, PolicyFieldsInput>;
}

interface Setting {
  value: Rec;
  source: string;
}

/** The backend-level MCP security of a route's edges, and why parts of it cannot be enforced. */
export interface BackendMcpSecurity {
  authentication?: Setting;
  authorization?: Setting;
  refusals: IrRefusal[];
}

const fields = ['authentication', 'authorization'] as const;

function parsed(text: string | undefined): Rec | undefined {
  if (text === undefined) return undefined;
  try {
    return rec(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/**
 * The edges' `backend.mcp.authentication` / `.authorization`. Every client request of an MCP route is checked
 * before an edge is chosen, so edges that disagree, or a setting on one MCP target only, are refused.
 */
export function backendMcpSecurity(edges: readonly McpEdge[]): BackendMcpSecurity {
  const out: BackendMcpSecurity = { refusals: [] };
  const live = edges.filter((e) => (e.weight ?? 1) > 0);
  for (const f of fields) {
    const seen = live.map((e) => ({
      value: rec(parsed(e.policy?.fields?.['backend.mcp'])?.[f]),
      source: e.policy?.provenance?.['backend.mcp']?.source ?? '',
    }));
    const set = seen.filter((s): s is Setting => s.value !== undefined);
    const first = set[0];
    if (first && new Set(seen.map((s) => (s.value ? stableStringify(s.value) : ''))).size > 1) {
      out.refusals.push(refusal(f, first.source, `${f} must be the same on every backend of the route`));
    } else if (first) out[f] = first;
    for (const e of live) {
      for (const [target, p] of Object.entries(e.targetPolicies ?? {})) {
        if (rec(parsed(p.fields?.['backend.mcp'])?.[f]) === undefined) continue;
        const source = p.provenance?.['backend.mcp']?.source ?? '';
        out.refusals.push(
          refusal(f, source, `${f} per MCP target (${target}) is not supported; set it on the backend`),
        );
      }
    }
  }
  const auth = out.authentication && toBackendMcpAuth(out.authentication.value);
  if (typeof auth === 'string' && out.authentication) {
    out.refusals.push(refusal('authentication', out.authentication.source, auth));
    delete out.authentication;
  }
  return out;
}

function refusal(f: string, source: string, reason: string): IrRefusal {
  return { field: `spec.backend.mcp.${f}`, source, reason, security: true };
}

/** The deprecated MCPAuthentication form as the IR McpAuthentication, or why it cannot be enforced as written. */
export function toBackendMcpAuth(a: Rec): McpAuthenticationInput | string {
  const jwks = rec(a.jwks) ?? {};
  const url = str(jwks.url);
  if (!url) return 'jwks.backendRef: keys from a backendRef are not supported; use jwks.url';
  if (a.clientSecretRef !== undefined)
    return 'clientSecretRef: a client secret for backend.mcp.authentication is not supported; use traffic.jwtAuthentication.mcp';
  const path = str(jwks.path);
  const meta = rec(a.resourceMetadata);
  const out: McpAuthenticationInput = {
    mode: (str(a.mode) ?? 'Strict').toUpperCase() as McpAuthenticationInput['mode'],
    issuer: str(a.issuer) ?? '',
    audiences: Array.isArray(a.audiences) ? a.audiences.filter((x): x is string => typeof x === 'string') : [],
    provider: (str(a.provider) ?? '').toUpperCase() as McpAuthenticationInput['provider'],
    clientId: str(a.clientId) ?? '',
    clientSecret: '',
    jwksUrl: path ? `${url.replace(/\/$/, '')}${path}` : url,
    jwksInline: '',
    moreProviders: [],
  };
  if (meta) {
    const { resource, scopesSupported, bearerMethodsSupported, ...extra } = meta;
    const list = (v: unknown): string[] =>
      Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
    out.resourceMetadata = {
      resource: str(resource) ?? '',
      scopesSupported: list(scopesSupported),
      bearerMethodsSupported: list(bearerMethodsSupported),
      extraJson: Object.keys(extra).length ? stableStringify(extra) : '',
    };
  }
  return out;
}

/**
 * Route and backend rules as one rule list for the one evaluation: each level's rule must hold on its own,
 * so with both present an Allow becomes Require (Allow rules of one list are alternatives).
 */
export function combinedRules(
  route: AuthorizationRuleInput[],
  backend: AuthorizationRuleInput[],
): AuthorizationRuleInput[] {
  if (route.length === 0 || backend.length === 0) return [...route, ...backend];
  return [...route, ...backend].map((r) => (r.action === 'ALLOW' ? { ...r, action: 'REQUIRE' as const } : r));
}
