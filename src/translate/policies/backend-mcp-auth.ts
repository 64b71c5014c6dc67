// `backend.mcp.authentication` and `backend.mcp.authorization` (a GwBackend's `policies`, a GwPolicy's `backend`)
// folded into the route's one typed policy: the proxy then checks them with the same token verifier and the
// same authorization evaluation as traffic.jwtAuthentication.mcp and traffic.authorization, never a second copy.
import type { IrRefusal } from '../../coverage/effective.js';
import type { AuthorizationRuleInput, McpAuthenticationInput, PolicyFieldsInput } from '../../ir/types.js';
import { stableStringify, str } from '../objects/read.js';
import type { AuthorizationSpec, McpSettings } from '../objects/gw-types.js';
import type { Ctx } from '../objects/context.js';
import { noJwksBackends, type JwksBackendResolver } from './jwks-backend.js';
import { secretData } from './policy-secrets.js';

type McpAuthentication = NonNullable<McpSettings['authentication']>;

/** One route → backend edge as the routes translator built it: merged fields as canonical JSON text. */
export interface McpEdge {
  weight?: number;
  policy?: PolicyFieldsInput | null;
  targetPolicies?: Record<string, PolicyFieldsInput>;
}

interface Setting<T> {
  value: T;
  source: string;
}

/** The backend-level MCP security of a route's edges, and why parts of it cannot be enforced. */
export interface BackendMcpSecurity {
  authentication?: Setting<McpAuthentication>;
  /** `authentication` in its IR form (keys through a backendRef resolved), when it can be enforced. */
  typed?: McpAuthenticationInput;
  authorization?: Setting<AuthorizationSpec>;
  refusals: IrRefusal[];
}

/**
 * An edge's `backend.mcp` back from its merged fields: the text is the canonical JSON of a value that passed
 * schema validation (policy-fields.ts), so it parses as the schema's type.
 */
function parsed(text: string | undefined): McpSettings | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as McpSettings;
  } catch {
    return undefined;
  }
}

/** A key of a Secret in the namespace of the object that set the field: its value, or why there is none. */
export type McpSecretReader = (ref: { name: string; key?: string }) => { value: string } | { problem: string };

/** Without the translation context no Secret is read: a `clientSecretRef` is refused rather than dropped. */
const noSecrets: McpSecretReader = () => ({ problem: 'cannot be read here' });

/** Secrets of the namespace of `source` (`GwBackend ns/name`, `GwPolicy ns/name`); messages never quote a value. */
export function mcpSecretReader(ctx: Ctx, source: string): McpSecretReader {
  const ns = /^\S+ ([^/\s]+)\//.exec(source)?.[1] ?? '';
  return (ref) => {
    const key = ref.key ?? 'clientSecret';
    const data = secretData(ctx, ns, ref.name);
    if (!data) return { problem: `Secret ${ns}/${ref.name} does not exist` };
    const value = (data[key] ?? '').trim();
    return value ? { value } : { problem: `Secret ${ns}/${ref.name} has no non-empty key ${key}` };
  };
}

/**
 * The edges' `backend.mcp.authentication` / `.authorization`. Every client request of an MCP route is checked
 * before an edge is chosen, so edges that disagree, or a setting on one MCP target only, are refused.
 * `jwksFrom` resolves `authentication.jwks.backendRef`, and `secretsFrom` reads `authentication.clientSecretRef`,
 * for the object (`GwBackend ns/name`, `GwPolicy ns/name`) that set it.
 */
export function backendMcpSecurity(
  edges: readonly McpEdge[],
  jwksFrom: (source: string) => JwksBackendResolver = () => noJwksBackends,
  secretsFrom: (source: string) => McpSecretReader = () => noSecrets,
): BackendMcpSecurity {
  const out: BackendMcpSecurity = { refusals: [] };
  const live = edges.filter((e) => (e.weight ?? 1) > 0);
  const authentication = agreed(live, 'authentication', out.refusals);
  if (authentication) out.authentication = authentication;
  const authorization = agreed(live, 'authorization', out.refusals);
  if (authorization) out.authorization = authorization;
  const a = out.authentication;
  const auth = a && toBackendMcpAuth(a.value, jwksFrom(a.source), secretsFrom(a.source));
  if (a && typeof auth === 'string') {
    out.refusals.push(refusal('authentication', a.source, auth));
    delete out.authentication;
  } else if (auth && typeof auth !== 'string') out.typed = auth;
  return out;
}

/** One field of the edges' `backend.mcp` when every edge agrees on it; refusals when they do not, or when set per target. */
function agreed<F extends 'authentication' | 'authorization'>(
  live: readonly McpEdge[],
  f: F,
  refusals: IrRefusal[],
): Setting<NonNullable<McpSettings[F]>> | undefined {
  const seen = live.map((e) => ({
    value: parsed(e.policy?.fields?.['backend.mcp'])?.[f],
    source: e.policy?.provenance?.['backend.mcp']?.source ?? '',
  }));
  const set = seen.filter((s): s is Setting<NonNullable<McpSettings[F]>> => s.value !== undefined);
  const first = set[0];
  let out: Setting<NonNullable<McpSettings[F]>> | undefined;
  if (first && new Set(seen.map((s) => (s.value ? stableStringify(s.value) : ''))).size > 1) {
    refusals.push(refusal(f, first.source, `${f} must be the same on every backend of the route`));
  } else if (first) out = first;
  for (const e of live) {
    for (const [target, p] of Object.entries(e.targetPolicies ?? {})) {
      if (parsed(p.fields?.['backend.mcp'])?.[f] === undefined) continue;
      const source = p.provenance?.['backend.mcp']?.source ?? '';
      refusals.push(refusal(f, source, `${f} per MCP target (${target}) is not supported; set it on the backend`));
    }
  }
  return out;
}

function refusal(f: string, source: string, reason: string): IrRefusal {
  return { field: `spec.backend.mcp.${f}`, source, reason, security: true };
}

/**
 * The deprecated MCPAuthentication form as the IR McpAuthentication, or why it cannot be enforced as written.
 * Keys through `jwks.backendRef` (+ `path`) are fetched with the backend's TLS, as jwtAuthentication's;
 * `clientSecretRef` (key `clientSecret`) is the secret of the gateway's own registration at the provider, which
 * the proxy adds to the token requests it relays for `clientId` (authorization_code, refresh_token).
 */
export function toBackendMcpAuth(
  a: McpAuthentication,
  jwksBackend: JwksBackendResolver = noJwksBackends,
  secrets: McpSecretReader = noSecrets,
): McpAuthenticationInput | string {
  let clientSecret = '';
  if (a.clientSecretRef !== undefined) {
    if (!a.clientId) return 'clientSecretRef: needs clientId, the registration the secret belongs to';
    const got = secrets(a.clientSecretRef);
    if ('problem' in got) return `clientSecretRef: ${got.problem}`;
    clientSecret = got.value;
  }
  const ref = a.jwks.backendRef;
  const viaRef = ref && jwksBackend(ref, a.jwks.path);
  if (viaRef && 'problem' in viaRef) return `jwks.backendRef: ${viaRef.problem}`;
  const url = viaRef ? viaRef.url : (a.jwks.url ?? '');
  const path = viaRef ? undefined : a.jwks.path;
  const out: McpAuthenticationInput = {
    mode: (a.mode ?? 'Strict').toUpperCase() as McpAuthenticationInput['mode'],
    issuer: a.issuer ?? '',
    audiences: [...(a.audiences ?? [])],
    provider: (a.provider ?? '').toUpperCase() as McpAuthenticationInput['provider'],
    clientId: a.clientId ?? '',
    clientSecret,
    jwksUrl: path ? `${url.replace(/\/$/, '')}${path}` : url,
    jwksInline: '',
    moreProviders: [],
    ...(viaRef?.tls ? { jwksTls: viaRef.tls } : {}),
  };
  if (a.resourceMetadata) out.resourceMetadata = resourceMetadataOf(a.resourceMetadata);
  return out;
}

/** `resourceMetadata` values are free-form JSON (the schema says any value): read defensively. */
export function resourceMetadataOf(meta: Record<string, unknown>): McpAuthenticationInput['resourceMetadata'] {
  const { resource, scopesSupported, bearerMethodsSupported, ...extra } = meta;
  const strings = (v: unknown): string[] =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  return {
    resource: str(resource) ?? '',
    scopesSupported: strings(scopesSupported),
    bearerMethodsSupported: strings(bearerMethodsSupported),
    extraJson: Object.keys(extra).length ? stableStringify(extra) : '',
  };
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
