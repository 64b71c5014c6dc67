// `backend.auth` on every edge that is not an `ai` backend (Services, GwBackend `static`, `a2a`,
// `mcp`, `dynamicForwardProxy`, `aws.agentCore`): the winning value resolved into the credential the
// proxy sends upstream. What the proxy cannot apply on such an edge refuses the edge (like an AI
// credential that cannot be resolved): sending the request without the credential would be silent.
// Pure: every read goes through the context. Messages name the field, never the key.
// Behaviour: docs/proxy.md "Backend authentication".
import type { Ctx } from '../objects/context.js';
import type { MergedFields } from '../policies/policy-merge.js';
import { aiCredential } from './backend-ai.js';
import { policyBackendResolver } from '../policies/ext-auth.js';
import type { BackendAuth } from '../../api/index.js';
import { IDENTITIES, identityCredential, identityScope, namespaceOfSource } from './backend-identity.js';
import type { AiCredentialInput, BackendInput } from '../../ir/types.js';

export type EdgeAuthResult = { ok: true; credential?: AiCredentialInput } | { ok: false; message: string };

/** Cloud token kinds: LLM vendor protocols, served on `ai` backends only. */
const AI_ONLY = ['azure', 'gcp'] as const;

/**
 * The credential of one non-AI edge (or one MCP target on it) from its merged fields. `aws` is kept
 * only on `aws.agentCore` edges (SigV4 is that backend's own protocol); `passthrough` is refused on
 * MCP targets, whose upstream session outlives the client request that carried the token.
 */
export function edgeCredential(ctx: Ctx, backend: BackendInput, m: MergedFields, target?: string): EdgeAuthResult {
  const auth = m.fields['backend.auth'];
  if (!auth) return { ok: true };
  const source = m.provenance['backend.auth']?.source ?? '';
  const at = (field: string): string => `${source ? `${source} ` : ''}backend.auth.${field}`;
  const on = target ? `MCP target ${target}` : `${backend.kind ?? 'static'} backends`;
  const aiOnly = AI_ONLY.find((k) => auth[k] !== undefined);
  if (aiOnly)
    return {
      ok: false,
      message: `${at(aiOnly)}: is only supported on ai backends, not on ${on}; use key, secretRef or passthrough`,
    };
  if (auth.aws !== undefined && backend.kind !== 'aws') {
    return {
      ok: false,
      message: `${at('aws')}: is only supported on ai and aws.agentCore backends, not on ${on}; use key, secretRef or passthrough`,
    };
  }
  if (backend.kind === 'aws' && auth.aws === undefined) {
    return {
      ok: false,
      message: `${at(Object.keys(auth).sort()[0] ?? 'aws')}: an aws.agentCore backend is signed with SigV4; only backend.auth.aws applies`,
    };
  }
  if (backend.kind === 'dynamicForwardProxy' && (auth.key !== undefined || auth.secretRef !== undefined)) {
    // The destination is whatever host the client names: a key the proxy attaches would go there too.
    return {
      ok: false,
      message: `${at(auth.key !== undefined ? 'key' : 'secretRef')}: is refused on dynamicForwardProxy backends, whose destination the client chooses; use passthrough`,
    };
  }
  if (backend.kind === 'mcp' && auth.passthrough) {
    return { ok: false, message: `${at('passthrough')}: is not supported on MCP targets yet; use key or secretRef` };
  }
  const identity = IDENTITIES.find((k) => auth[k] !== undefined);
  if (identity) return edgeIdentity(ctx, m, identity, at);
  const c = aiCredential(ctx, auth, namespaceOfSource(source), source, at);
  if (typeof c === 'string') return { ok: false, message: c };
  if (!c)
    return {
      ok: false,
      message: `${at(Object.keys(auth).sort()[0] ?? 'key')}: sets no credential this proxy can send; use key, secretRef or passthrough`,
    };
  return { ok: true, credential: c };
}

function edgeIdentity(
  ctx: Ctx,
  m: MergedFields,
  kind: (typeof IDENTITIES)[number],
  at: (field: string) => string,
): EdgeAuthResult {
  const c = identityCredential(
    identityScope(ctx, m, at, policyBackendResolver(ctx, m.provenance)),
    m.fields['backend.auth'] ?? {},
  );
  return typeof c === 'string' || !c
    ? { ok: false, message: c ?? `${at(kind)}: is not set` }
    : { ok: true, credential: c };
}

/** An object a GwPolicy targets; for a GwBackend, the first of ai, mcp, a2a, static, aws its spec sets. */
export interface EdgeAuthTarget {
  kind: string;
  name: string;
  backendType?: 'ai' | 'mcp' | 'a2a' | 'static' | 'aws';
}

/**
 * Why a GwPolicy's `backend.auth` cannot be applied on the backends it targets directly (Services and
 * GwBackends), for its status: field path → reason. Gateways and routes it targets reach edges of many
 * kinds; those edges' routes say it in their own ResolvedRefs.
 */
export function unenforcedEdgeAuth(auth: BackendAuth, targets: readonly EdgeAuthTarget[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of targets) {
    if (t.kind !== 'Service' && t.kind !== 'GwBackend') continue;
    const kind = t.kind === 'Service' ? 'static' : (t.backendType ?? 'dynamicForwardProxy');
    if (kind === 'ai') continue;
    const aiOnly = AI_ONLY.find((k) => auth[k] !== undefined);
    if (aiOnly) out[aiOnly] = `is only supported on ai backends, and ${t.kind} ${t.name} is not one`;
    if (auth.aws !== undefined && kind !== 'aws')
      out.aws = `is only supported on ai and aws.agentCore backends, and ${t.kind} ${t.name} is neither`;
    if (auth.aws === undefined && kind === 'aws')
      out[Object.keys(auth).sort()[0] ?? 'aws'] =
        `${t.kind} ${t.name} is an aws.agentCore backend, signed with backend.auth.aws only`;
    if (auth.passthrough && kind === 'mcp')
      out.passthrough = `is not supported on MCP targets yet (${t.kind} ${t.name})`;
    const keyField = auth.key !== undefined ? 'key' : auth.secretRef !== undefined ? 'secretRef' : undefined;
    if (keyField && kind === 'dynamicForwardProxy')
      out[keyField] =
        `is refused on dynamicForwardProxy backends such as ${t.kind} ${t.name}, whose destination the client chooses`;
  }
  return out;
}
