// Which addresses the proxy may connect to when a client names the destination (server-side request forgery):
// the one table of address ranges that are not public unicast, each with the reason a refusal names. Client ID
// Metadata Document fetches accept public unicast only; a dynamic forward proxy refuses every range of the
// table unless its backend's `allowedDestinations` lists it. IPv4-mapped IPv6 is read as its IPv4 address here
// (plainAddress) and nowhere else. The CIMD check runs on the addresses a connection really uses
// (guardedLookup), so a name that resolves to a public address when checked and a private one when connecting
// cannot slip through.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** Ranges that are not public unicast (IANA special-purpose registries, RFC 6890), first match names the reason. */
const nonPublicRanges: [net: string, prefix: number, reason: string][] = [
  ['0.0.0.0', 8, 'an unspecified ("this network") address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address (cloud metadata lives there)'],
  ['10.0.0.0', 8, 'a private address'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.168.0.0', 16, 'a private address'],
  ['100.64.0.0', 10, 'a shared (carrier-grade NAT) address'],
  ['192.0.0.0', 24, 'an IETF protocol assignment address'],
  ['192.0.2.0', 24, 'a documentation address'],
  ['198.51.100.0', 24, 'a documentation address'],
  ['203.0.113.0', 24, 'a documentation address'],
  ['192.88.99.0', 24, 'a 6to4 relay anycast address'],
  ['198.18.0.0', 15, 'a benchmarking address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved or broadcast address'],
  ['::', 128, 'an unspecified address'],
  ['::1', 128, 'a loopback address'],
  ['::', 96, 'an IPv4-compatible address (deprecated)'],
  ['64:ff9b::', 96, 'a NAT64 address (it reaches an IPv4 address through a translator)'],
  ['64:ff9b:1::', 48, 'a local-use NAT64 address'],
  ['100::', 64, 'a discard-only address'],
  ['2001:db8::', 32, 'a documentation address'],
  ['3fff::', 20, 'a documentation address'],
  ['2001::', 23, 'an IETF protocol assignment address (Teredo among them)'],
  ['2002::', 16, 'a 6to4 address (it reaches an IPv4 address through a relay)'],
  ['fc00::', 7, 'a private (unique local) address'],
  ['fe80::', 10, 'a link-local address'],
  ['fec0::', 10, 'a site-local address (deprecated)'],
  ['ff00::', 8, 'a multicast address'],
];
const nonPublicLists = nonPublicRanges.map(([net, prefix, reason]) => {
  const type = isIP(net) === 6 ? ('ipv6' as const) : ('ipv4' as const);
  const list = new BlockList();
  list.addSubnet(net, prefix, type);
  return { list, type, reason };
});

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

const familyOf = (plain: string): 'ipv4' | 'ipv6' => (isIP(plain) === 6 ? 'ipv6' : 'ipv4');

/** Why an IP address (canonical, see plainAddress) is not public unicast, or undefined when it is. */
export function nonPublicReason(plain: string): string | undefined {
  const type = familyOf(plain);
  return nonPublicLists.find((r) => r.type === type && r.list.check(plain, type))?.reason;
}

/** True for a public unicast IP address; false for anything else, including text that is not an address. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  return isIP(bare) !== 0 && nonPublicReason(plainAddress(bare)) === undefined;
}

/** Ranges in CIDR text (each valid, see cidrProblem) as one list; an IPv4-mapped range is its IPv4 range. */
export function allowList(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const c of cidrs) {
    const [net = '', prefixText = ''] = c.split('/');
    const plain = plainAddress(net);
    const mapped = isIP(net) === 6 && isIP(plain) === 4;
    const prefix = mapped ? Math.max(0, Number(prefixText) - 96) : Number(prefixText);
    list.addSubnet(plain, prefix, familyOf(plain));
  }
  return list;
}

/** Whether a list made by allowList holds an address (canonical, see plainAddress). */
export const listed = (list: BlockList, plain: string): boolean => list.check(plain, familyOf(plain));

/** Why a CIDR text is no IPv4 or IPv6 range, or undefined when it is one. */
export function cidrProblem(cidr: string): string | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(cidr);
  const family = m ? isIP(m[1] ?? '') : 0;
  if (!m || family === 0 || Number(m[2]) > (family === 4 ? 32 : 128))
    return `must be an IPv4 or IPv6 range in CIDR notation (10.0.0.0/8, fd00::/8), got ${JSON.stringify(cidr)}`;
  return undefined;
}

/** Decides whether a connection may go to an address; a test allow-list widens isPublicAddress. */
export type AddressRule = (address: string) => boolean;

export class AddressRefused extends Error {
  constructor(readonly host: string) {
    super(`${host} resolves to an address that is not public; refusing to connect`);
  }
}

/**
 * A `lookup` for net/tls connect options that resolves every address of the name and fails unless all of them
 * pass `rule` (one refused address refuses the name: a round-robin answer must not reach a private host).
 */
export function guardedLookup(
  rule: AddressRule = isPublicAddress,
  lookup: typeof dnsLookup = dnsLookup,
): LookupFunction {
  return (hostname, options, callback) => {
    const all: LookupAllOptions = { ...options, all: true };
    lookup(hostname, all, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const refused = addresses.length === 0 || addresses.some((a) => !rule(a.address));
      if (refused) return callback(new AddressRefused(hostname), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}
