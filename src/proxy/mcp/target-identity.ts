// Per-request identities (token exchange, cross-app access, signed JWT) on MCP targets. A target session
// outlives the client request that opened it, so the credential is obtained for every client request, through
// the same code as every other edge (auth/backend-identity.ts; cached, so a session's later requests cost a
// lookup), and the calls that request makes to the targets carry it. What a target is sent outside any client
// request (its GET stream reconnecting, a notification) carries the one its session's latest request obtained.
// Only streamable-HTTP targets: the SDK's transports (stdio, legacy SSE) take their headers once, at connect.
// Behaviour: docs/auth.md "Backend identities".
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import type { McpBackend, McpTarget } from '../../ir/types.js';
import { IdentityFailure, identityLocation, type BackendIdentities, type Caller } from '../auth/backend-identity.js';
import { identityOfTarget } from '../backend-auth.js';
import { flatHeaders } from './request.js';

/** The credential headers of this client request, by target name. */
const current = new AsyncLocalStorage<Map<string, Record<string, string>>>();

/** Targets of `backend` that carry a per-request identity. */
export function identityTargets(backend: McpBackend): McpTarget[] {
  return backend.targets.filter((t) => identityOfTarget(t) !== undefined);
}

/** Why the route cannot send its identity targets their credential (a transport that takes no per-request header). */
export function identityRefusal(backend: McpBackend, streamable: (t: McpTarget) => boolean): string | undefined {
  const bad = identityTargets(backend).filter(
    (t) => !streamable(t) || identityLocation(identityOfTarget(t))?.queryParameter,
  );
  if (bad.length === 0) return undefined;
  return `backend.auth identities on MCP targets ${bad.map((t) => t.name).join(', ')} (only streamable-HTTP targets receive a per-request credential, and only in a header or cookie)`;
}

/**
 * Runs `serve` with each identity target's credential for this request obtained first; a credential that cannot be
 * had is returned instead (the client is answered 401 or 502, and no target is called).
 */
export async function withTargetIdentities(
  identities: BackendIdentities,
  targets: readonly McpTarget[],
  req: IncomingMessage,
  caller: Caller,
  serve: () => Promise<void>,
): Promise<IdentityFailure | undefined> {
  const request = {
    method: req.method ?? 'POST',
    path: (req.url ?? '/').split('?')[0] ?? '/',
    headers: flatHeaders(req),
  };
  const byTarget = new Map<string, Record<string, string>>();
  for (const t of targets) {
    const c = identityOfTarget(t);
    if (!c) continue;
    const p = await identities.place(c, { path: '', headers: {} }, caller, request, `MCP target ${t.name}`);
    if (p instanceof IdentityFailure) return p;
    byTarget.set(t.name, p.headers as Record<string, string>);
  }
  await current.run(byTarget, serve);
  return undefined;
}

/** The credential headers of `target` for the client request being served, if it has an identity. */
export function requestIdentity(target: string): Record<string, string> | undefined {
  return current.getStore()?.get(target);
}
