// DNS-rebinding protection for MCP endpoints (the MCP transport spec: servers MUST validate Origin).
// A page on evil.example that re-points its name at 127.0.0.1 reaches a loopback listener with
// `Host: evil.example` and `Origin: http://evil.example`; both are refused with 403 here.
import type { IncomingMessage } from 'node:http';
import type { Route } from '../../ir/types.js';
import { originMatches } from '../policy/cors.js';
import { hostnameOf, isLoopbackAddress, isLoopbackName, sameOrigin } from '../net/loopback.js';

function named(host: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => {
    const l = p.toLowerCase();
    return l === host || (l.startsWith('*.') && host.endsWith(l.slice(1)));
  });
}

/**
 * Why this request must not reach the MCP endpoint, or undefined when it may. On a loopback listener
 * the Host must be a loopback name or one the listener or route names; any `Origin` must be the
 * request's own (same host and port) or one the route's CORS policy allows.
 */
export function rebindingRefusal(
  req: IncomingMessage,
  listenerHostnames: readonly string[],
  route: Route,
): string | undefined {
  const hostHeader = req.headers.host ?? '';
  const host = hostnameOf(hostHeader);
  if (host === undefined) return `invalid Host header ${JSON.stringify(hostHeader)}`;
  if (
    isLoopbackAddress(req.socket.localAddress) &&
    !isLoopbackName(host) &&
    !named(host, listenerHostnames) &&
    !named(host, route.hostnames)
  ) {
    return `Host ${host} is not a name of this loopback listener (DNS rebinding protection); use localhost or 127.0.0.1`;
  }
  const origin = req.headers.origin;
  if (typeof origin !== 'string') return undefined;
  if (route.policy?.cors?.allowOrigins.some((o) => originMatches(o, origin))) return undefined;
  if (sameOrigin(origin, hostHeader)) return undefined;
  return `origin ${origin} is not allowed by the route's CORS policy (DNS rebinding protection)`;
}
