// TLS to MCP targets (`backend.tls` on the edge, a target's own `policies.tls`: IR BackendRef.tls and
// target_tls). The targets of a route's copy of its backend carry a dispatcher from the proxy's one upstream
// TLS implementation (http/upstream-tls.ts, the pool static backends use) and are dialled over https.
import type { Dispatcher } from 'undici';
import type { BackendRef, BackendTls, McpBackend, McpTarget } from '../../ir/types.js';
import { copyTarget } from '../backend-auth.js';

/** The pool's dispatcher for one target host with these settings (looked up per request, so idle ones close). */
export type TlsDial = (host: string, tls: BackendTls) => Dispatcher;

const byTarget = new WeakMap<McpTarget, () => Dispatcher>();

/** The route's MCP backend with TLS attached to its remote targets (a copy when any has TLS). */
export function mcpBackendWithTls(backend: McpBackend, ref: BackendRef | undefined, dial: TlsDial): McpBackend {
  if (!ref || (!ref.tls && Object.keys(ref.targetTls ?? {}).length === 0)) return backend;
  const targets = backend.targets.map((t) => {
    const tls = ref.targetTls?.[t.name] ?? ref.tls;
    if (!tls || !t.remote) return t;
    const url = new URL(t.remote.url);
    // The target's port stays as configured (443 is https's default and drops out of the URL).
    const port = url.port || '80';
    url.protocol = 'https:';
    url.port = port;
    const copy = { ...copyTarget(t), remote: { ...t.remote, url: url.toString() } };
    const host = url.hostname.replace(/^\[|\]$/g, '');
    byTarget.set(copy, () => dial(host, tls));
    return copy;
  });
  return { ...backend, targets };
}

/** How to get a target's TLS dispatcher (ask per request: the pool closes idle ones); undefined for plain HTTP. */
export function targetDial(target: McpTarget): (() => Dispatcher) | undefined {
  return byTarget.get(target);
}
