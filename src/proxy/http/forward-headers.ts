// Header rewriting of the HTTP forwarder (RFC 9110 §7.6.1): hop-by-hop headers stay on their hop, and
// the backend learns who asked through X-Forwarded-*. Pure: headers in, headers out.
import type { IncomingHttpHeaders } from 'node:http';

// Always hop-by-hop, whether or not Connection names them. `expect` is answered by this proxy's own
// server (100-continue), so it must not be repeated to the backend either.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'proxy-connection',
  'expect',
]);

type Headers = IncomingHttpHeaders | Record<string, string | string[] | undefined>;

/** The headers without hop-by-hop ones: the fixed list, every `proxy-*`, and those Connection names. */
export function withoutHopByHop(headers: Headers): Record<string, string | string[]> {
  const named = connectionTokens(headers.connection);
  const out: Record<string, string | string[]> = {};
  // for-in over the request's own headers object: no entries array per request (a hot path of every forward).
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    const key = name.toLowerCase();
    // `:authority`, `:path`, ...: an HTTP/2 client's pseudo-headers belong to its hop (Host carries the authority).
    if (isHopByHop(key) || key.startsWith(':') || named?.has(key)) continue;
    out[key] = value;
  }
  return out;
}

/** A lower-case header name that is always hop-by-hop: the fixed list and every `proxy-*` (not those Connection names). */
export function isHopByHop(name: string): boolean {
  return HOP_BY_HOP.has(name) || name.startsWith('proxy-');
}

/** The header names a Connection header lists, lower-cased; undefined when there is none (the usual case). */
function connectionTokens(connection: string | string[] | undefined): Set<string> | undefined {
  if (!connection) return undefined;
  const named = new Set<string>();
  for (const v of Array.isArray(connection) ? connection : [connection])
    for (const token of v.split(',')) if (token.trim()) named.add(token.trim().toLowerCase());
  return named;
}

export interface ClientSide {
  /** Peer address of the client connection. */
  remoteAddress: string | undefined;
  /** `https` when the client connection is TLS. */
  proto: 'http' | 'https';
}

/**
 * Request headers for the backend: hop-by-hop removed, the client's Host kept (Gateway API leaves the
 * Host alone unless a filter rewrites it), X-Forwarded-For appended, X-Forwarded-Proto/-Host set.
 */
export function upstreamRequestHeaders(
  headers: IncomingHttpHeaders,
  client: ClientSide,
): Record<string, string | string[]> {
  const out = withoutHopByHop(headers);
  const prior = out['x-forwarded-for'];
  const chain = (Array.isArray(prior) ? prior.join(', ') : (prior ?? '')).trim();
  const peer = client.remoteAddress?.replace(/^::ffff:/, '') ?? '';
  if (peer) out['x-forwarded-for'] = chain ? `${chain}, ${peer}` : peer;
  out['x-forwarded-proto'] = client.proto;
  if (headers.host) out['x-forwarded-host'] = headers.host;
  return out;
}
