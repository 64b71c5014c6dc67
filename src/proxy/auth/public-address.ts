// Which addresses the proxy may connect to when a client names the URL (server-side request forgery): public
// unicast only. Loopback, private (RFC 1918, unique local), link-local, carrier-grade NAT, documentation,
// benchmarking, multicast, unspecified and reserved ranges are refused, IPv4-mapped IPv6 by its IPv4 address.
// The check runs on the addresses a connection really uses (a dns.lookup for net/tls connect), so a name that
// resolves to a public address when checked and a private one when connecting cannot slip through.
// Not specific to OAuth: written to be shared with the dynamic forward proxy's SSRF rules.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const notPublic = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  notPublic.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  notPublic.addSubnet(net, prefix, 'ipv6');

const mappedV4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** True for a public unicast IP address; false for anything else, including text that is not an address. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  const v4 = mappedV4.exec(bare)?.[1];
  if (v4) return isPublicAddress(v4);
  const family = isIP(bare);
  if (family === 0) return false;
  return !notPublic.check(bare, family === 4 ? 'ipv4' : 'ipv6');
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
