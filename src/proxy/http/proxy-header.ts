// The PROXY protocol header a load balancer puts in front of a connection's own bytes (GwPolicy
// `frontend.proxyProtocol`), read from the bytes seen so far. Pure: bytes in, a verdict out.
//
// Version 1 is one text line, at most 107 bytes with its CRLF:
//   `PROXY TCP4 <src> <dst> <sport> <dport>\r\n` (TCP6 likewise), or `PROXY UNKNOWN<anything>\r\n`.
// Version 2 is binary: a 12-byte signature; a byte of version (high nibble, 2) and command (low nibble:
// 0 LOCAL, 1 PROXY); a byte of address family (high: 0 unspecified, 1 IPv4, 2 IPv6, 3 unix) and transport
// (low: 0 unspecified, 1 stream, 2 datagram); a 16-bit big-endian length of what follows: the addresses
// (IPv4: 4+4+2+2 bytes, IPv6: 16+16+2+2; source first, ports big-endian), then optional TLVs (skipped).
// LOCAL, UNKNOWN, unspecified and unix carry no usable address: the connection's own is kept.
import { isIP } from 'node:net';

export type ProxyVersion = 1 | 2;

export interface Endpoint {
  address: string;
  port: number;
  family: 'IPv4' | 'IPv6';
}

export type HeaderRead =
  /** The bytes so far could still become a header (or, for Optional, still be told apart from one). */
  | { kind: 'more' }
  /** The connection does not start with a PROXY header of either version. */
  | { kind: 'none' }
  | { kind: 'invalid'; reason: string }
  /** `length` bytes of header; `source` absent when the header carries no client address. */
  | { kind: 'header'; length: number; source?: Endpoint; destination?: Endpoint };

const V1_PREFIX = Buffer.from('PROXY ');
const V1_MAX = 107;
const V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
const V2_FIXED = 16;

/** Whether `bytes` begins like `sig` as far as both go. */
function startsLike(bytes: Buffer, sig: Buffer): boolean {
  const n = Math.min(bytes.length, sig.length);
  return bytes.subarray(0, n).equals(sig.subarray(0, n));
}

/** Reads the header of `version` at the start of `bytes`; a header of the other version is invalid. */
export function readProxyHeader(bytes: Buffer, version: ProxyVersion): HeaderRead {
  if (bytes.length === 0) return { kind: 'more' };
  const seen = startsLike(bytes, V1_PREFIX) ? 1 : startsLike(bytes, V2_SIGNATURE) ? 2 : 0;
  if (seen === 0) return { kind: 'none' };
  const whole = bytes.length >= (seen === 1 ? V1_PREFIX : V2_SIGNATURE).length;
  if (!whole) return { kind: 'more' };
  if (seen !== version)
    return { kind: 'invalid', reason: `a version ${seen} PROXY header where version ${version} is expected` };
  return version === 1 ? readV1(bytes) : readV2(bytes);
}

function readV1(bytes: Buffer): HeaderRead {
  const end = bytes.subarray(0, V1_MAX).indexOf('\r\n');
  if (end < 0)
    return bytes.length >= V1_MAX
      ? { kind: 'invalid', reason: `a version 1 PROXY header longer than ${V1_MAX} bytes` }
      : { kind: 'more' };
  const line = bytes.subarray(0, end).toString('latin1');
  const length = end + 2;
  const parts = line.split(' ');
  if (parts[1] === 'UNKNOWN') return { kind: 'header', length };
  const family = parts[1] === 'TCP4' ? 4 : parts[1] === 'TCP6' ? 6 : 0;
  const [, , src = '', dst = '', sport = '', dport = ''] = parts;
  const port = (p: string): number => (/^(0|[1-9]\d{0,4})$/.test(p) && Number(p) <= 65535 ? Number(p) : -1);
  if (
    parts.length !== 6 ||
    family === 0 ||
    isIP(src) !== family ||
    isIP(dst) !== family ||
    port(sport) < 0 ||
    port(dport) < 0
  )
    return { kind: 'invalid', reason: `a malformed version 1 PROXY header ${JSON.stringify(line.slice(0, V1_MAX))}` };
  const fam = family === 4 ? 'IPv4' : 'IPv6';
  return {
    kind: 'header',
    length,
    source: { address: src, port: port(sport), family: fam },
    destination: { address: dst, port: port(dport), family: fam },
  };
}

function readV2(bytes: Buffer): HeaderRead {
  if (bytes.length < V2_FIXED) return { kind: 'more' };
  const versionCommand = bytes[12] as number;
  const familyTransport = bytes[13] as number;
  const length = V2_FIXED + bytes.readUInt16BE(14);
  if (versionCommand >> 4 !== 2)
    return { kind: 'invalid', reason: `a version 2 PROXY signature with version nibble ${versionCommand >> 4}` };
  const command = versionCommand & 0x0f;
  if (command > 1) return { kind: 'invalid', reason: `a version 2 PROXY header with unknown command ${command}` };
  if (bytes.length < length) return { kind: 'more' };
  const family = familyTransport >> 4;
  const transport = familyTransport & 0x0f;
  if (family > 3 || transport > 2)
    return {
      kind: 'invalid',
      reason: `a version 2 PROXY header with unknown family/transport 0x${familyTransport.toString(16)}`,
    };
  // LOCAL (the balancer's own health check), and families without an IP address: the connection's own is kept.
  if (command === 0 || family === 0 || family === 3) return { kind: 'header', length };
  if (transport !== 1)
    return {
      kind: 'invalid',
      reason: 'a version 2 PROXY header for a datagram or unspecified transport on a TCP port',
    };
  const size = family === 1 ? 4 : 16;
  if (length - V2_FIXED < 2 * size + 4)
    return {
      kind: 'invalid',
      reason: `a version 2 PROXY header whose address block is shorter than ${2 * size + 4} bytes`,
    };
  const at = V2_FIXED;
  const addr = (offset: number): string =>
    size === 4 ? [...bytes.subarray(offset, offset + 4)].join('.') : ipv6Text(bytes.subarray(offset, offset + 16));
  const fam = size === 4 ? 'IPv4' : 'IPv6';
  return {
    kind: 'header',
    length,
    source: { address: addr(at), port: bytes.readUInt16BE(at + 2 * size), family: fam },
    destination: { address: addr(at + size), port: bytes.readUInt16BE(at + 2 * size + 2), family: fam },
  };
}

/** RFC 5952 text of 16 address bytes: lower-case hex, the longest run of zero groups as `::`, mapped IPv4 dotted. */
export function ipv6Text(b: Buffer): string {
  if (b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff)
    return `::ffff:${[...b.subarray(12, 16)].join('.')}`;
  const groups = Array.from({ length: 8 }, (_, i) => b.readUInt16BE(i * 2));
  let best = { start: -1, len: 0 };
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.len) best = { start: i, len: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.len < 2) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.len).join(':')}`;
}
