// GwBackend `dynamicForwardProxy`: the destination of each request is the host and port its Host header
// names. This file decides that destination, refuses every address that is not public unicast (the ranges of
// net/public-address.ts) or is the pod's own unless the backend allows it, and refuses the ones that would loop
// back into the proxy.
// Behaviour: docs/proxy.md "Dynamic forward proxy".
import { lookup } from 'node:dns/promises';
import { isIP, type BlockList } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Route } from '../../ir/types.js';
import { listed, nonPublicReason, plainAddress } from '../net/public-address.js';
import { ProxyError } from '../proxy-error.js';
import { normalizeHost } from './request-target.js';

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
  // Again here: a header modifier or URLRewrite may have set a Host after the request's was normalised.
  const text = normalizeHost(value).toLowerCase();
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

/** The addresses of this machine: loopback, unspecified, and every interface address (canonical, see plainAddress). */
export function localAddresses(): Set<string> {
  const out = new Set(['0.0.0.0', '::']);
  for (const list of Object.values(networkInterfaces())) for (const i of list ?? []) out.add(plainAddress(i.address));
  return out;
}

/**
 * Why a dynamic forward proxy must not reach `address` by default: every range that is not public unicast
 * (loopback, link-local, private, carrier-grade NAT, NAT64, documentation, multicast…, net/public-address.ts),
 * and this machine's own addresses; undefined when `allowed` lists it or it is none of these.
 */
export function refusedDestination(
  address: string,
  allowed: BlockList | undefined,
  local: ReadonlySet<string>,
): string | undefined {
  const plain = plainAddress(address);
  if (allowed && listed(allowed, plain)) return undefined;
  return nonPublicReason(plain) ?? (local.has(plain) ? "this pod's own address" : undefined);
}

/** Whether connecting to `address:port` reaches one of this proxy's own listener ports. */
export function isSelf(
  address: string,
  port: number,
  selfPorts: Iterable<number>,
  local: ReadonlySet<string>,
): boolean {
  if (![...selfPorts].includes(port)) return false;
  const a = plainAddress(address);
  return local.has(a) || a.startsWith('127.') || a === '::1';
}

/** The 403 of a dynamic destination the backend does not allow. */
export function destinationNotAllowed(
  backend: string,
  host: string,
  port: number,
  address: string,
  what: string,
): ProxyError {
  const bracket = (h: string): string => (isIP(h) === 6 ? `[${h}]` : h);
  const named = host === address ? bracket(host) : `${host} (${bracket(address)})`;
  return new ProxyError(
    'destination_not_allowed',
    `${named}:${port} is ${what}, which backend ${backend} does not reach unless its dynamicForwardProxy.allowedDestinations lists it`,
  );
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
