// GwBackend `dynamicForwardProxy`: the destination of each request is the host and port its Host header
// names. This file decides that destination, refuses addresses inside the pod or its networks unless the
// backend allows them, and refuses the ones that would loop back into the proxy.
// Behaviour: docs/proxy.md "Dynamic forward proxy".
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Route } from '../../ir/types.js';
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
 * An IP address in one spelling: IPv6 compressed and lower case (WHATWG host parser), and an IPv4-mapped
 * IPv6 address (`::ffff:127.0.0.1`, `::ffff:7f00:1`) as the IPv4 address it reaches.
 */
export function plainAddress(address: string): string {
  if (isIP(address) !== 6) return address;
  const v6 = new URL(`http://[${address.replace(/%.*$/, '')}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
  if (!mapped) return v6;
  const hi = parseInt(mapped[1] ?? '0', 16);
  const lo = parseInt(mapped[2] ?? '0', 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** Ranges a dynamic forward proxy refuses unless the backend lists them: the pod and the networks around it. */
const refusedRanges: [string, number, 'ipv4' | 'ipv6', string][] = [
  ['0.0.0.0', 8, 'ipv4', 'an unspecified ("this network") address'],
  ['127.0.0.0', 8, 'ipv4', 'a loopback address'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local address (cloud metadata lives there)'],
  ['10.0.0.0', 8, 'ipv4', 'a private address'],
  ['172.16.0.0', 12, 'ipv4', 'a private address'],
  ['192.168.0.0', 16, 'ipv4', 'a private address'],
  ['100.64.0.0', 10, 'ipv4', 'a shared (carrier-grade NAT) address'],
  ['224.0.0.0', 3, 'ipv4', 'a multicast or reserved address'],
  ['::1', 128, 'ipv6', 'a loopback address'],
  ['::', 96, 'ipv6', 'an unspecified or IPv4-compatible address'],
  ['fe80::', 10, 'ipv6', 'a link-local address'],
  ['fc00::', 7, 'ipv6', 'a private (unique local) address'],
  ['ff00::', 8, 'ipv6', 'a multicast address'],
];
const refusedLists = refusedRanges.map(([net, prefix, type, what]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, type);
  return { list, type, what };
});

/** A backend's `allowedDestinations` (CIDR text, checked by snapshot-check.ts) as one list. */
export function allowList(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const c of cidrs) {
    const [net = '', prefixText = ''] = c.split('/');
    const plain = plainAddress(net);
    // Addresses are checked unmapped: an IPv4-mapped range is its IPv4 range.
    const mapped = isIP(net) === 6 && isIP(plain) === 4;
    const prefix = mapped ? Math.max(0, Number(prefixText) - 96) : Number(prefixText);
    list.addSubnet(plain, prefix, isIP(plain) === 6 ? 'ipv6' : 'ipv4');
  }
  return list;
}

/** Why `allowedDestinations[i]` is no CIDR range, or undefined when it is one. */
export function cidrProblem(cidr: string): string | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(cidr);
  const family = m ? isIP(m[1] ?? '') : 0;
  if (!m || family === 0 || Number(m[2]) > (family === 4 ? 32 : 128))
    return `must be an IPv4 or IPv6 range in CIDR notation (10.0.0.0/8, fd00::/8), got ${JSON.stringify(cidr)}`;
  return undefined;
}

/**
 * What `address` is when a dynamic forward proxy must not reach it by default (loopback, link-local,
 * private, unspecified, multicast, or this machine's own), unless `allowed` lists it; undefined otherwise.
 */
export function refusedDestination(
  address: string,
  allowed: BlockList | undefined,
  local: ReadonlySet<string>,
): string | undefined {
  const plain = plainAddress(address);
  const type = isIP(plain) === 6 ? 'ipv6' : 'ipv4';
  if (allowed?.check(plain, type)) return undefined;
  for (const r of refusedLists) if (r.type === type && r.list.check(plain, type)) return r.what;
  return local.has(plain) ? "this pod's own address" : undefined;
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
