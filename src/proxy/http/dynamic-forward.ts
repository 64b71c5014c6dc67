// GwBackend `dynamicForwardProxy`: the destination of each request is the host and port its Host header
// names. This file decides that destination and refuses the ones that would loop back into the proxy.
// Behaviour: docs/proxy.md "Dynamic forward proxy".
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Route } from '../../ir/types.js';

export interface Destination {
  /** Host name or IP literal (IPv6 without brackets), lower case. */
  host: string;
  port: number;
}

/** A destination, or why the Host header names none (one sentence, for a 400 body). */
export type DestinationResult = { ok: true; destination: Destination } | { ok: false; reason: string };

// RFC 3986 reg-name restricted to what DNS can resolve: LDH labels separated by dots.
const DNS_NAME =
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/;

/**
 * The host and port a Host header value names; the port defaults to 443 when the edge speaks TLS, else 80.
 * Anything that is not `host`, `host:port`, `[v6]` or `[v6]:port` with a port of 1-65535 names none.
 */
export function destinationOf(hostHeader: string | string[] | undefined, tls: boolean): DestinationResult {
  const value = Array.isArray(hostHeader) ? hostHeader[0] : hostHeader;
  if (value === undefined || value.trim() === '')
    return { ok: false, reason: 'the request has no Host header naming its destination' };
  const text = value.trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/.exec(text);
  const plain = bracketed ? undefined : /^([^:[\]]+)(?::(\d{1,5}))?$/.exec(text);
  const host = bracketed?.[1] ?? plain?.[1];
  const portText = bracketed ? bracketed[2] : plain?.[2];
  if (!host || (bracketed && isIP(host) !== 6) || (!bracketed && isIP(host) !== 4 && !DNS_NAME.test(host))) {
    return {
      ok: false,
      reason: `Host ${JSON.stringify(value.slice(0, 300))} is not a host name or IP address with an optional port`,
    };
  }
  const port = portText === undefined ? (tls ? 443 : 80) : Number(portText);
  if (port < 1 || port > 65535)
    return {
      ok: false,
      reason: `Host ${JSON.stringify(value.slice(0, 300))} names port ${portText ?? ''}, which is not between 1 and 65535`,
    };
  return { ok: true, destination: { host: host.replace(/\.$/, ''), port } };
}

/** Resolves a host to the one address connected to, so the loop check and the connection see the same address. */
export type Resolve = (host: string) => Promise<string>;

export const resolveHost: Resolve = async (host) => (isIP(host) ? host : (await lookup(host)).address);

/** The addresses of this machine: loopback, unspecified, and every interface address. */
export function localAddresses(): Set<string> {
  const out = new Set(['0.0.0.0', '::']);
  for (const list of Object.values(networkInterfaces())) for (const i of list ?? []) out.add(i.address);
  return out;
}

/** Whether connecting to `address:port` reaches one of this proxy's own listener ports. */
export function isSelf(
  address: string,
  port: number,
  selfPorts: Iterable<number>,
  local: ReadonlySet<string>,
): boolean {
  if (![...selfPorts].includes(port)) return false;
  const a = address.replace(/^::ffff:/, '');
  return local.has(a) || a.startsWith('127.') || a === '::1';
}

/**
 * Whether a `Via` header already carries this proxy's pseudonym: the request went through this process
 * once and came back through something the address check cannot see (a Service, another proxy).
 */
export function viaHas(via: string | string[] | undefined, pseudonym: string): boolean {
  const text = Array.isArray(via) ? via.join(',') : (via ?? '');
  return text.split(',').some((hop) => hop.trim().split(/\s+/)[1] === pseudonym);
}

/** `Via` with this hop appended (RFC 9110 §7.6.3). */
export function viaWith(via: string | string[] | undefined, pseudonym: string): string {
  const prior = (Array.isArray(via) ? via.join(', ') : (via ?? '')).trim();
  return prior ? `${prior}, 1.1 ${pseudonym}` : `1.1 ${pseudonym}`;
}

/** Whether the route's policy restricts who may use it; a forward proxy without it is an open proxy. */
export function hasAccessControl(route: Route): boolean {
  const p = route.policy;
  if (!p) return false;
  return Boolean(
    p.jwtAuthentication ||
    p.basicAuthentication ||
    p.apiKeyAuthentication ||
    p.extAuthorization ||
    p.mcpAuthentication ||
    (p.authorization && p.authorization.rules.length > 0),
  );
}
