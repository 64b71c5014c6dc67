// Loopback names and same-origin checks, shared by the MCP endpoint's DNS-rebinding protection and the admin
// address: a page whose name was re-pointed at 127.0.0.1 arrives with its own Host and Origin.
import { isIP } from 'node:net';

/** A socket address on loopback (IPv4 127/8, ::1, and IPv4-mapped forms). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.startsWith('::ffff:') ? address.slice(7) : address;
  return a === '::1' || (isIP(a) === 4 && a.startsWith('127.'));
}

/** `localhost`, `*.localhost` or a loopback address (bracketed IPv6 too); `host` is lower-case. */
export function isLoopbackName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || isLoopbackAddress(host.replace(/^\[|\]$/g, ''));
}

/** The host name of a Host header or an origin's authority, lower-case, without port; undefined if malformed. */
export function hostnameOf(authority: string): string | undefined {
  try {
    return new URL(`http://${authority}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Whether `origin` names the same host and port as the request's Host header (case-insensitive). */
export function sameOrigin(origin: string, hostHeader: string): boolean {
  try {
    return new URL(origin).host.toLowerCase() === hostHeader.toLowerCase();
  } catch {
    return false; // `null` (an opaque origin) or garbage: never the request's own
  }
}
