// How the proxy connects to MCP targets: TLS (`backend.tls` on the edge, a target's own `policies.tls`: IR
// BackendRef.tls and target_tls), the forward proxy (`tunnel`, target_tunnels), dialer settings (`tcp`,
// target_tcp), the HTTP version (`http.version`, target_http_versions: HTTP2 through the one dialer's HTTP/2
// dispatcher, upstream-dial.ts) and the request timeout of calls to them (target_request_timeout_ms). The targets of a route's copy of its backend carry a dispatcher from the proxy's one upstream
// dialer (http/upstream-dial.ts, or the TLS pool static backends use) and, with TLS, are dialled over https.
import type { Dispatcher } from 'undici';
import type { BackendRef, McpBackend, McpTarget } from '../../ir/types.js';
import type { UpstreamConnection } from '../http/upstream-dial.js';
import { copyTarget } from '../backend-auth.js';

/** The dispatcher for one target host with these settings (looked up per request, so idle ones close). */
export type TargetDial = (host: string, connection: UpstreamConnection) => Dispatcher;

const byTarget = new WeakMap<McpTarget, () => Dispatcher>();

/** The target's connection settings: its own, else the edge's. */
function connectionOf(ref: BackendRef, name: string): UpstreamConnection {
  const tls = ref.targetTls?.[name] ?? ref.tls;
  const tunnel = ref.targetTunnels?.[name] ?? ref.tunnel;
  const tcp = ref.targetTcp?.[name] ?? ref.tcp;
  const version = ref.targetHttpVersions?.[name] ?? ref.httpVersion;
  return {
    ...(tls ? { tls } : {}),
    ...(tunnel ? { tunnel } : {}),
    ...(tcp ? { tcp } : {}),
    ...(version === 'HTTP2' || version === 'HTTP1' ? { httpVersion: version } : {}),
  };
}

/** The route's MCP backend with connection settings attached to its remote targets (a copy when any has some). */
export function mcpBackendWithTls(backend: McpBackend, ref: BackendRef | undefined, dial: TargetDial): McpBackend {
  if (!ref) return backend;
  const targets = backend.targets.map((t) => {
    const c = connectionOf(ref, t.name);
    // HTTP1 alone needs nothing of its own: the shared pools speak HTTP/1.1.
    if ((!c.tls && !c.tunnel && !c.tcp && c.httpVersion !== 'HTTP2') || !t.remote) return t;
    const url = new URL(t.remote.url);
    if (c.tls) {
      // The target's port stays as configured (443 is https's default and drops out of the URL).
      const port = url.port || '80';
      url.protocol = 'https:';
      url.port = port;
    }
    // One copy: a spread of copyTarget's would lose the credential attached to it.
    const copy = copyTarget(t, { remote: { ...t.remote, url: url.toString() } });
    const host = url.hostname.replace(/^\[|\]$/g, '');
    byTarget.set(copy, () => dial(host, c));
    return copy;
  });
  return targets.some((t, i) => t !== backend.targets[i]) ? { ...backend, targets } : backend;
}

/**
 * Each target's `backend.http.requestTimeout` (its own, else the edge's), in ms: the bound of a call to it
 * when the route sets no `timeouts`; undefined when no target has one.
 */
export function targetRequestTimeouts(
  backend: McpBackend,
  ref: BackendRef | undefined,
): Record<string, number> | undefined {
  if (!ref) return undefined;
  let out: Record<string, number> | undefined;
  for (const t of backend.targets) {
    const ms = ref.targetRequestTimeoutMs?.[t.name] || ref.requestTimeoutMs;
    if (ms) (out ??= {})[t.name] = ms;
  }
  return out;
}

/** How to get a target's dispatcher (ask per request: the pool closes idle ones); undefined for the shared pool. */
export function targetDial(target: McpTarget): (() => Dispatcher) | undefined {
  return byTarget.get(target);
}
