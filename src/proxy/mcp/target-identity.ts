// Per-request identities (token exchange, cross-app access, signed JWT) on MCP targets. A target session
// outlives the client request that opened it, so the credential is obtained for every client request, through
// the same code as every other edge (auth/backend-identity.ts; cached, so a session's later requests cost a
// lookup), and the calls that request makes to the targets carry it. What a target is sent outside any client
// request (its GET stream reconnecting, a notification) carries the one its session's latest request obtained.
// Legacy SSE targets get it through the SDK transport's fetch (the SSE GET and every POST to the message
// endpoint); a `queryParameter` location is added to every URL the target is sent (a dispatcher interceptor on
// streamable-HTTP targets, the same fetch on SSE ones). Not stdio targets: no request carries a credential there.
// Behaviour: docs/auth.md "Backend identities".
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import type { Dispatcher } from 'undici';
import type { McpBackend, McpTarget } from '../../ir/types.js';
import { IdentityFailure, identityLocation, type BackendIdentities, type Caller } from '../auth/backend-identity.js';
import { identityOfTarget } from '../backend-auth.js';
import { flatHeaders } from './request.js';

/** What a target's requests carry of a credential: headers, and a query parameter (name, value) when it goes there. */
export interface TargetCredential {
  headers: Record<string, string>;
  query?: [string, string];
}

/** The credential of this client request, by target name. */
const current = new AsyncLocalStorage<Map<string, TargetCredential>>();

/** Targets of `backend` that carry a per-request identity. */
export function identityTargets(backend: McpBackend): McpTarget[] {
  return backend.targets.filter((t) => identityOfTarget(t) !== undefined);
}

/** Why the route cannot send its identity targets their credential (a transport that takes no per-request header). */
export function identityRefusal(backend: McpBackend): string | undefined {
  const bad = identityTargets(backend).filter((t) => t.transport !== 'remote' || !t.remote);
  if (bad.length === 0) return undefined;
  return `backend.auth identities on MCP targets ${bad.map((t) => t.name).join(', ')} (stdio targets receive no per-request credential)`;
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
  const byTarget = new Map<string, TargetCredential>();
  for (const t of targets) {
    const c = identityOfTarget(t);
    if (!c) continue;
    const p = await identities.place(c, { path: '', headers: {} }, caller, request, `MCP target ${t.name}`);
    if (p instanceof IdentityFailure) return p;
    const name = identityLocation(c)?.queryParameter;
    const value = name ? new URLSearchParams(p.path.split('?')[1] ?? '').get(name) : null;
    byTarget.set(t.name, {
      headers: p.headers as Record<string, string>,
      ...(name && value !== null ? { query: [name, value] as [string, string] } : {}),
    });
  }
  await current.run(byTarget, serve);
  return undefined;
}

/** The credential headers of `target` for the client request being served, if it has an identity. */
export function requestIdentity(target: string): Record<string, string> | undefined {
  return current.getStore()?.get(target)?.headers;
}

/**
 * The credential of `target` for the client request being served, else the one the latest request obtained: what
 * a request sent outside any client request (a reconnect, a notification) carries.
 */
export function latestIdentity(target: string): () => TargetCredential | undefined {
  let latest: TargetCredential | undefined;
  return () => (latest = current.getStore()?.get(target) ?? latest);
}

/** `url` with the credential's query parameter set (replacing one the URL had). */
export function withIdentityQuery(url: string, c: TargetCredential | undefined): string {
  if (!c?.query) return url;
  const u = new URL(url);
  u.searchParams.set(c.query[0], c.query[1]);
  return u.href;
}

/** The credential of `target` for the client request being served (headers and query parameter), if it has one. */
export function requestCredential(target: string): TargetCredential | undefined {
  return current.getStore()?.get(target);
}

/**
 * For a target whose identity goes in a query parameter: its dispatcher (`dial`, else `fallback`) with the parameter
 * added to the path of every request it sends (calls, resumed streams, the GET stream, notifications). Undefined for
 * any other target: it keeps `dial` as it is.
 */
export function identityQueryDial(
  target: McpTarget,
  dial: (() => Dispatcher) | undefined,
  fallback: Dispatcher,
): (() => Dispatcher) | undefined {
  if (!identityLocation(identityOfTarget(target))?.queryParameter) return undefined;
  const credential = latestIdentity(target.name);
  const composed = new WeakMap<Dispatcher, Dispatcher>();
  return () => {
    const base = dial?.() ?? fallback;
    let d = composed.get(base);
    if (!d) {
      d = base.compose((dispatch) => (opts, handler) => {
        const c = credential();
        if (!c?.query) return dispatch(opts, handler);
        const [p, q = ''] = opts.path.split('?', 2) as [string, string?];
        const query = new URLSearchParams(q);
        query.set(c.query[0], c.query[1]);
        return dispatch({ ...opts, path: `${p}?${query.toString()}` }, handler);
      });
      composed.set(base, d);
    }
    return d;
  };
}
