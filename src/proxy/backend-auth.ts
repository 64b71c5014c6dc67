// GwPolicy `backend.auth` on edges that are not `ai` backends (IR BackendRef.credential and
// target_credentials): `key` / `secretRef` replace the upstream Authorization with `Bearer <key>`;
// `passthrough` sends the client's own bearer token as it arrived (authentication may have removed it
// from the request meanwhile). AgentCore edges sign with `aws` keys instead. Nothing here logs or
// returns a key. Behaviour: docs/proxy.md "Backend authentication".
import type { AiCredential__Output as AiCredential } from '../ir/gen/gw/ir/v1/AiCredential.js';
import type { BackendRef, McpBackend, McpTarget, Snapshot } from '../ir/types.js';
import type { Problem } from '../problem.js';
import type { HeaderMap } from './http/route-filters.js';
import { isIdentity } from './auth/backend-identity.js';

/** Why a request cannot be sent with its edge's credential: the client's to fix (no bearer token to pass through). */
export class MissingClientToken {
  readonly message: string;
  constructor(backend: string) {
    this.message = `backend ${backend} receives the client's bearer token, and the request carries none`;
  }
}

/**
 * `headers` with the edge's credential applied. `clientAuthorization` is the Authorization header the
 * client sent, before authentication ran.
 */
export function withCredential(
  headers: HeaderMap,
  c: AiCredential | null | undefined,
  clientAuthorization: string | undefined,
  backend: string,
): HeaderMap | MissingClientToken {
  if (c?.kind === 'key' && c.key) return { ...headers, authorization: `Bearer ${c.key}` };
  if (c?.kind === 'passthrough') {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(clientAuthorization ?? '')?.[1];
    if (!token) return new MissingClientToken(backend);
    return { ...headers, authorization: `Bearer ${token}` };
  }
  return headers;
}

/** Headers every request to an MCP target carries: its own credential, else the edge's. */
export function targetHeaders(ref: BackendRef, target: string): Record<string, string> {
  const c = ref.targetCredentials?.[target] ?? ref.credential;
  return c?.kind === 'key' && c.key ? { authorization: `Bearer ${c.key}` } : {};
}

// Keyed by the target objects of one route's copy of the backend: two routes to one backend may carry
// different credentials, and the connection code sees only the target.
const byTarget = new WeakMap<McpTarget, Record<string, string>>();

// Per-request identities of targets (mcp/target-identity.ts obtains them for each client request).
const identityByTarget = new WeakMap<McpTarget, AiCredential>();

/** The route's MCP backend with its targets' credentials attached (a copy when any is set). */
export function mcpBackendWithCredentials(backend: McpBackend, ref: BackendRef | undefined): McpBackend {
  if (!ref || (!ref.credential && Object.keys(ref.targetCredentials ?? {}).length === 0)) return backend;
  const targets = backend.targets.map((t) => {
    const copy = { ...t };
    const headers = targetHeaders(ref, t.name);
    if (Object.keys(headers).length > 0) byTarget.set(copy, headers);
    const c = ref.targetCredentials?.[t.name] ?? ref.credential;
    if (c && isIdentity(c)) identityByTarget.set(copy, c);
    return copy;
  });
  return { ...backend, targets };
}

/** A copy of `target` with `changes`, keeping the credential attached to it (for further per-route settings). */
export function copyTarget(target: McpTarget, changes: Partial<McpTarget> = {}): McpTarget {
  const copy = { ...target, ...changes };
  const headers = byTarget.get(target);
  if (headers) byTarget.set(copy, headers);
  const identity = identityByTarget.get(target);
  if (identity) identityByTarget.set(copy, identity);
  return copy;
}

/** The per-request identity (tokenExchange, crossAppAccess, jwtSign) of `target`, if its edge sets one. */
export function identityOfTarget(target: McpTarget): AiCredential | undefined {
  return identityByTarget.get(target);
}

/** Headers of `target` from `mcpBackendWithCredentials`; empty when its edge sets no credential. */
export function upstreamHeadersOf(target: McpTarget): Record<string, string> {
  return byTarget.get(target) ?? {};
}

/**
 * Credentials the proxy cannot apply where the snapshot puts them (a hand-written or foreign IR):
 * refused whole, like any other invalid snapshot, instead of sending requests without them.
 */
export function credentialProblems(snapshot: Snapshot, source: string): Problem[] {
  const kinds = new Map<string, string>();
  for (const r of snapshot.resources)
    if (r.kind === 'backend' && r.backend) kinds.set(r.backend.name, r.backend.kind ?? '');
  const out: Problem[] = [];
  for (const r of snapshot.resources) {
    if (r.kind !== 'route' || !r.route) continue;
    r.route.backends.forEach((b, i) => {
      const kind = kinds.get(b.backend) ?? '';
      const check = (c: AiCredential | null | undefined, path: string): void => {
        const why = unusable(c, kind);
        if (why)
          out.push({ source, object: `Route ${r.route?.name ?? ''}`, path: `backends[${i}].${path}`, message: why });
      };
      check(b.credential, 'credential');
      for (const t of Object.keys(b.targetCredentials ?? {}).sort())
        check(b.targetCredentials[t], `targetCredentials.${t}`);
    });
  }
  return out;
}

function unusable(c: AiCredential | null | undefined, backendKind: string): string | undefined {
  if (!c?.kind) return undefined;
  if (backendKind === 'ai') return 'is not read on ai backends; their credentials are in ai.providers';
  if (backendKind === 'aws')
    return c.kind === 'aws'
      ? undefined
      : `${c.kind} cannot be applied to an aws.agentCore backend, which is signed with aws keys`;
  if (backendKind === 'dynamicForwardProxy' && c.kind === 'key')
    return 'key cannot be applied to dynamicForwardProxy backends: the client chooses where it would go';
  if (backendKind === 'mcp')
    return c.kind === 'key' || isIdentity(c)
      ? undefined
      : `${c.kind} cannot be applied to MCP targets; only key, tokenExchange, crossAppAccess or jwtSign`;
  return ['key', 'passthrough', 'tokenExchange', 'jwtSign', 'crossAppAccess'].includes(c.kind)
    ? undefined
    : `${c.kind} cannot be applied to ${backendKind} backends; only key, passthrough, tokenExchange, crossAppAccess or jwtSign`;
}
