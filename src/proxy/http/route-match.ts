// Gateway API request matching: picks the listener for a Host header and, on that listener, the one
// route match that wins by the HTTPRoute "Matching precedence" rules. Everything is compiled once per
// snapshot; a request costs a few map lookups and the tests of the candidate matches in order.
import type { IncomingHttpHeaders } from 'node:http';
import { compileIrRegex } from '../../ir/regex.js';
import type { PathMatch, Route, RouteMatch, ValueMatch } from '../../ir/types.js';
import { fieldPath, ProblemError, type Problem } from '../../problem.js';

/** What matching reads from a request. `host` is lower case without a port; `query` has no `?`. */
export interface MatchRequest {
  host: string;
  method: string;
  path: string;
  query: string;
  headers: IncomingHttpHeaders;
}

export type RouteMatcher<T> = (req: MatchRequest) => T | undefined;

/** The route's matches in the current IR shape: `routeMatches`, else the deprecated path-only `matches`. */
export function routeMatchesOf(route: Route): RouteMatch[] {
  if (route.routeMatches.length > 0) return route.routeMatches;
  return route.matches.map((path) => ({ path, headers: [], queryParams: [], method: '' }));
}

/** Splits a request target into path and query string. */
export function splitTarget(url: string | undefined): { path: string; query: string } {
  const target = url ?? '/';
  const q = target.indexOf('?');
  return q < 0 ? { path: target, query: '' } : { path: target.slice(0, q), query: target.slice(q + 1) };
}

/**
 * What a request is matched by: the Host header's name (lower case, no port), and the target's path and
 * query. A CONNECT (authority-form target `host:port`) is matched by the authority's host and path `/`.
 */
export function matchTarget(
  method: string | undefined,
  url: string | undefined,
  hostHeader: string | undefined,
): { host: string; path: string; query: string } {
  if (method === 'CONNECT') return { host: (url ?? '').replace(/:\d*$/, '').toLowerCase(), path: '/', query: '' };
  return { host: (hostHeader ?? '').replace(/:\d+$/, '').toLowerCase(), ...splitTarget(url) };
}

/**
 * How specifically a host name pattern matches `host`: exact names beat wildcards and longer beats
 * shorter (Gateway API listener and route hostname precedence); -1 when it does not match.
 */
export function hostnameRank(pattern: string, host: string): number {
  const p = pattern.toLowerCase();
  if (p === host) return 1_000_000 + p.length;
  // `*.example.com` covers one or more leading labels, never `example.com` itself.
  if (p.startsWith('*.') && host.endsWith(p.slice(1)) && host.length > p.length - 1) return p.length;
  return -1;
}

/** The listener whose host names match `host` most specifically; a listener without host names matches any host, last. */
export function selectListener<L extends { hostnames: readonly string[] }>(
  listeners: readonly L[],
  host: string,
): L | undefined {
  let best: L | undefined;
  let bestRank = -1;
  for (const l of listeners) {
    const rank =
      l.hostnames.length === 0
        ? 0
        : Math.max(
            ...l.hostnames.map((h) => {
              const r = hostnameRank(h, host);
              return r < 0 ? -1 : r + 1;
            }),
          );
    if (rank > bestRank) {
      best = l;
      bestRank = rank;
    }
  }
  return bestRank < 0 ? undefined : best;
}

interface Entry<T> {
  target: T;
  route: Route;
  matchIndex: number;
  match: RouteMatch;
  test(req: MatchRequest, params: () => URLSearchParams): boolean;
}

/**
 * Compiles the routes of one listener. A route without host names serves the listener's; a listener
 * without host names serves every host. Throws a ProblemError naming each invalid regex.
 */
export function compileRouteMatcher<T extends { route: Route }>(
  targets: readonly T[],
  listenerHostnames: readonly string[],
  source = 'snapshot',
): RouteMatcher<T> {
  const problems: Problem[] = [];
  const byHost = new Map<string, Entry<T>[]>();
  for (const target of targets) {
    const { route } = target;
    const matches = routeMatchesOf(route);
    const legacy = route.routeMatches.length === 0;
    // Deprecated path-only matches are PathMatch themselves: name their field, not the mapped one.
    const bad = (i: number, path: (string | number)[], message: string) =>
      problems.push({
        source,
        object: `Route ${route.name}`,
        message,
        path: fieldPath(legacy ? ['matches', i, ...path.slice(1)] : ['routeMatches', i, ...path]),
      });
    const hosts =
      route.hostnames.length > 0 ? route.hostnames : listenerHostnames.length > 0 ? listenerHostnames : [''];
    const list = matches.length > 0 ? matches : [{ path: null, headers: [], queryParams: [], method: '' }];
    list.forEach((match, matchIndex) => {
      const test = compileMatch(match, (path, message) => bad(matchIndex, path, message));
      if (!test) return;
      const entry: Entry<T> = { target, route, matchIndex, match, test };
      for (const h of new Set(hosts.map((x) => x.toLowerCase()))) {
        const bucket = byHost.get(h);
        if (bucket) bucket.push(entry);
        else byHost.set(h, [entry]);
      }
    });
  }
  if (problems.length > 0) throw new ProblemError(problems);
  for (const entries of byHost.values()) entries.sort(precedence);
  // The common case: no host names anywhere on this listener, so the Host header cannot matter.
  const anyHostOnly = byHost.size === 1 && byHost.has('');
  return (req) => {
    let parsed: URLSearchParams | undefined;
    const params = () => (parsed ??= new URLSearchParams(req.query));
    for (const pattern of anyHostOnly ? [''] : hostCandidates(req.host)) {
      for (const e of byHost.get(pattern) ?? []) if (e.test(req, params)) return e.target;
    }
    return undefined;
  };
}

/** The patterns that can match `host`, most specific first: itself, its wildcards from longest, then "any". */
function hostCandidates(host: string): string[] {
  const out = [host];
  const labels = host.split('.');
  for (let i = 1; i < labels.length; i++) out.push(`*.${labels.slice(i).join('.')}`);
  out.push('');
  return out;
}

type Test = (req: MatchRequest, params: () => URLSearchParams) => boolean;

function compileMatch(m: RouteMatch, bad: (path: (string | number)[], message: string) => void): Test | undefined {
  let ok = true;
  const regex = (source: string, path: (string | number)[]): RegExp | undefined => {
    try {
      return compileIrRegex(source);
    } catch (err) {
      bad(path, `is not a valid regular expression: ${(err as Error).message}`);
      ok = false;
      return undefined;
    }
  };
  const path = pathTest(m.path, (s) => regex(s, ['path', 'regex']));
  const value = (v: ValueMatch, at: (string | number)[]): ((s: string | undefined) => boolean) => {
    if (v.kind === 'regex') {
      const re = regex(v.regex ?? '', [...at, 'regex']);
      return (s) => s !== undefined && re !== undefined && re.test(s);
    }
    return (s) => s === (v.exact ?? '');
  };
  const headers = m.headers.map((h, i) => ({ name: h.name.toLowerCase(), test: value(h, ['headers', i]) }));
  const query = m.queryParams.map((q, i) => ({ name: q.name, test: value(q, ['queryParams', i]) }));
  const method = m.method.toUpperCase();
  if (!ok) return undefined;
  return (req, params) => {
    if (method && req.method !== method) return false;
    if (!path(req.path)) return false;
    for (const h of headers) if (!h.test(headerValue(req.headers[h.name]))) return false;
    for (const q of query) if (!q.test(params().get(q.name) ?? undefined)) return false;
    return true;
  };
}

// Repeated headers compare as one comma-joined value, the HTTP form of a list.
function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

function pathTest(m: PathMatch | null, regex: (source: string) => RegExp | undefined): (path: string) => boolean {
  if (!m || m.kind === undefined || m.kind === 'prefix') {
    // Prefixes match whole path segments: `/abc` matches `/abc` and `/abc/x`, never `/abcd`.
    const prefix = trimSlash(m?.prefix ?? '/');
    return (p) => prefix === '' || p === prefix || p.startsWith(`${prefix}/`);
  }
  if (m.kind === 'exact') return (p) => p === m.exact;
  const re = regex(m.regex ?? '');
  return (p) => re !== undefined && re.test(p);
}

function trimSlash(prefix: string): string {
  return prefix.replace(/\/+$/, '');
}

const pathKindRank = { exact: 0, regex: 1, prefix: 2 } as const;

function pathKey(m: PathMatch | null): { rank: number; length: number } {
  if (!m || m.kind === undefined || m.kind === 'prefix')
    return { rank: pathKindRank.prefix, length: trimSlash(m?.prefix ?? '/').length };
  if (m.kind === 'exact') return { rank: pathKindRank.exact, length: (m.exact ?? '').length };
  return { rank: pathKindRank.regex, length: (m.regex ?? '').length };
}

/**
 * Gateway API precedence: exact path, then regex, then prefix (longer values first within each);
 * a method match; more header matches; more query parameter matches; the older route; the
 * alphabetically first namespace/name; the earlier rule; then IR name and match order for stability.
 */
function precedence<T>(a: Entry<T>, b: Entry<T>): number {
  const pa = pathKey(a.match.path),
    pb = pathKey(b.match.path);
  return (
    pa.rank - pb.rank ||
    pb.length - pa.length ||
    Number(b.match.method !== '') - Number(a.match.method !== '') ||
    b.match.headers.length - a.match.headers.length ||
    b.match.queryParams.length - a.match.queryParams.length ||
    compareText(a.route.order?.created ?? '', b.route.order?.created ?? '') ||
    compareText(a.route.order?.key ?? '', b.route.order?.key ?? '') ||
    (a.route.order?.rule ?? 0) - (b.route.order?.rule ?? 0) ||
    compareText(a.route.name, b.route.name) ||
    a.matchIndex - b.matchIndex
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
