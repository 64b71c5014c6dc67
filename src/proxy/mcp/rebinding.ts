// DNS-rebinding protection for MCP endpoints (the MCP transport spec: servers MUST validate Origin).
// A page on evil.example that re-points its name at 127.0.0.1 reaches a loopback listener with
// `Host: evil.example` and `Origin: http://evil.example`; both are refused with 403 here.
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { Route } from '../../ir/types.js';
import { originMatches } from '../policy/cors.js';

function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.startsWith('::ffff:') ? address.slice(7) : address;
  return a === '::1' || (isIP(a) === 4 && a.startsWith('127.'));
}

function isLoopbackName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || isLoopbackAddress(host.replace(/^\[|\]$/g, ''));
}

/** The host name of a Host header or an origin's authority, lower-case, without port; undefined if malformed. */
function hostnameOf(authority: string): string | undefined {
  try {
    return new URL(`http://${authority}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

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

function sameOrigin(origin: string, hostHeader: string): boolean {
  try {
    return new URL(origin).host.toLowerCase() === hostHeader.toLowerCase();
  } catch {
    return false; // `null` (an opaque origin) or garbage: never the request's own
  }
}
