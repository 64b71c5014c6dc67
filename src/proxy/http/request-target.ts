// The request target, parsed once: every form a client may send (origin, absolute, asterisk) becomes one
// normalised origin-form path that routing, policy and the upstream all see, so what is matched is what is
// forwarded, byte for byte. Normalisation after Envoy's normalize_path / merge_slashes / escaped-slash
// options: decode percent-encoded unreserved characters, refuse an encoded `/` or `\`, merge slashes,
// remove dot-segments (RFC 3986 §5.2.4). The Host gets one spelling too. Behaviour: docs/proxy.md
// "Request targets".
import { domainToASCII } from 'node:url';

/** What a request is routed and forwarded by. `url` is origin-form (`/path?query`); `host` is set for absolute-form. */
export type RequestTarget =
  | { kind: 'origin'; url: string; path: string; query: string; host?: string }
  /** `OPTIONS *`: about the server, not a resource; answered by the proxy. */
  | { kind: 'asterisk' }
  /** CONNECT's `host:port`, read by the connect stage and tunnel as it is. */
  | { kind: 'authority' }
  | { kind: 'invalid'; reason: string };

// An absolute-form target's authority: a host (name, IPv4 or bracketed IPv6) and an optional port. No userinfo.
const AUTHORITY = /^(?:\[[0-9a-f:.]+\]|[a-z0-9_.~!$&'()*+,;=%-]+)(?::\d{0,5})?$/i;
const ABSOLUTE = /^(https?):\/\/([^/?#]*)(.*)$/i;
const UNRESERVED = /[A-Za-z0-9._~-]/;

/** Parses what the request line carried; `method` decides whether `*` and authority-form are allowed. */
export function parseRequestTarget(method: string | undefined, url: string | undefined): RequestTarget {
  const raw = url ?? '';
  if (method === 'CONNECT') return { kind: 'authority' };
  if (raw === '*')
    return method === 'OPTIONS'
      ? { kind: 'asterisk' }
      : { kind: 'invalid', reason: `the request target * is only allowed with OPTIONS, not ${method ?? 'GET'}` };
  if (raw.includes('#')) return invalid(raw, 'carries a fragment (#), which a request target never has');
  if (raw.startsWith('/')) return originForm(raw);
  const abs = ABSOLUTE.exec(raw);
  if (!abs) return invalid(raw, 'is neither a path (origin-form) nor an http(s) URL (absolute-form)');
  const authority = abs[2] ?? '';
  if (authority.includes('@')) return invalid(raw, 'carries userinfo in its authority');
  if (!AUTHORITY.test(authority)) return invalid(raw, 'has no valid host in its authority');
  const rest = abs[3] ?? '';
  // RFC 9112 §3.2.2: an empty path in absolute-form is `/`.
  const parsed = originForm(rest.startsWith('/') ? rest : `/${rest}`);
  return parsed.kind === 'origin' ? { ...parsed, host: authority.toLowerCase() } : parsed;
}

function originForm(target: string): RequestTarget {
  const q = target.indexOf('?');
  const rawPath = q < 0 ? target : target.slice(0, q);
  const query = q < 0 ? '' : target.slice(q + 1);
  const path = normalizePath(rawPath);
  if (typeof path !== 'string') return invalid(target, path.reason);
  return { kind: 'origin', url: q < 0 ? path : `${path}?${query}`, path, query };
}

/**
 * A path the steps below would leave as it is: no percent-encoding, no backslash, no empty segment, no `.` or
 * `..` segment. Most paths are; they skip the copy.
 */
const NEEDS_WORK = /[%\\]|\/\/|\/\.\.?(?:\/|$)/;

/** The normalised path, or why it has none. `path` starts with `/`. */
export function normalizePath(path: string): string | { reason: string } {
  if (!NEEDS_WORK.test(path)) return path;
  let decoded = '';
  for (let i = 0; i < path.length; i++) {
    const c = path[i] ?? '';
    if (c === '\\') return { reason: 'contains a backslash, which backends disagree about' };
    if (c !== '%') {
      decoded += c;
      continue;
    }
    const hex = path.slice(i + 1, i + 3);
    if (!/^[0-9a-f]{2}$/i.test(hex))
      return { reason: `has a malformed percent-encoding at ${JSON.stringify(path.slice(i, i + 3))}` };
    const byte = String.fromCharCode(parseInt(hex, 16));
    if (byte === '/' || byte === '\\')
      return {
        reason: `contains an encoded ${byte === '/' ? 'slash (%2F)' : 'backslash (%5C)'}, which backends disagree about`,
      };
    decoded += UNRESERVED.test(byte) ? byte : `%${hex.toUpperCase()}`;
    i += 2;
  }
  return removeDotSegments(decoded.replace(/\/{2,}/g, '/'));
}

/** RFC 3986 §5.2.4 on an absolute path without empty segments: `.` goes, `..` removes the segment before it. */
function removeDotSegments(path: string): string {
  const segments = path.slice(1).split('/');
  const out: string[] = [];
  segments.forEach((s, i) => {
    const last = i === segments.length - 1;
    if (s === '.' || s === '..') {
      if (s === '..') out.pop();
      // A trailing `.` or `..` leaves the path ending in `/` (`/a/b/..` → `/a/`).
      if (last) out.push('');
    } else out.push(s);
  });
  return `/${out.join('/')}`;
}

// The query is left out of the message: it may carry a token.
function invalid(target: string, why: string): RequestTarget {
  const shown = target.split('?')[0]?.slice(0, 200) ?? '';
  return { kind: 'invalid', reason: `the request target ${JSON.stringify(shown)} ${why}` };
}

/**
 * A Host value in one spelling, so a rule on it cannot be passed by another: lower case, no trailing dot,
 * IPv4 in dotted decimal whatever numeric form it came in (`127.1`, `2130706433`, `0x7f000001`, `0177.0.0.1`,
 * as the WHATWG URL host parser and the system resolver read them), IPv6 compressed, IDNs in punycode.
 * A value that is no host at all stays as it was, for whoever reads it to refuse.
 */
export function normalizeHost(value: string): string {
  if (value.length > MAX_CACHED_HOST) return spellHost(value);
  let known = hostSpellings.get(value);
  if (known === undefined) {
    // Bounded in entries and in length (a name is at most 253 bytes): a client sending a new Host on every
    // request costs at most this much memory.
    if (hostSpellings.size >= MAX_HOST_SPELLINGS) hostSpellings.clear();
    hostSpellings.set(value, (known = spellHost(value)));
  }
  return known;
}

/** Host values seen and their one spelling: a proxy sees few, and `domainToASCII` was per request. */
const hostSpellings = new Map<string, string>();
const MAX_HOST_SPELLINGS = 1024;
const MAX_CACHED_HOST = 272;

function spellHost(value: string): string {
  const m = /^(\[[^\]]*\]|[^:[\]]*)(:\d*)?$/.exec(value.trim());
  if (!m?.[1]) return value;
  const port = m[2] ?? '';
  if (m[1].startsWith('[')) {
    try {
      return `${new URL(`http://${m[1]}/`).hostname}${port}`;
    } catch {
      return value;
    }
  }
  const ascii = domainToASCII(m[1].replace(/\.+$/, ''));
  return ascii ? `${ascii}${port}` : value;
}
