// Gateway API route filters on the wire: request/response header modifiers, URL rewrite and redirects
// answered by the proxy itself. The transformations are pure functions of plain data; the two hooks at
// the end bind them to a request. Behaviour: docs/proxy.md "Route filters".
import { requestScheme } from './h2-compat.js';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { HeaderModifier, PathMatch, Route } from '../../ir/types.js';
import { routeMatchesOf } from './route-match.js';

export type RouteFilters = NonNullable<Route['filters']>;
export type PathModifier = NonNullable<NonNullable<RouteFilters['rewrite']>['path']>;
type Redirect = NonNullable<RouteFilters['redirect']>;
type Rewrite = NonNullable<RouteFilters['rewrite']>;

export type HeaderMap = Record<string, string | string[]>;

const REDIRECT_CODES = new Set([301, 302, 303, 307, 308]);
const DEFAULT_PORT: Record<string, number> = { http: 80, https: 443 };

/**
 * The headers after a Gateway API header modifier: `remove`, then `set` (replaces every value), then
 * `add` (appends: one comma-joined value, except Set-Cookie, which cannot be joined). Names are matched
 * case-insensitively; `headers` must have lower-case names (as Node gives them). Returns a new map.
 */
export function applyHeaderModifier(headers: HeaderMap, mod: HeaderModifier): HeaderMap {
  const out: HeaderMap = { ...headers };
  for (const name of mod.remove) delete out[name.toLowerCase()];
  return setAndAddHeaders(out, mod);
}

/** `set`, then `add`, of a header modifier, applied to `out` itself (a map the caller owns); returns `out`. */
export function setAndAddHeaders(out: HeaderMap, mod: Pick<HeaderModifier, 'set' | 'add'>): HeaderMap {
  for (const h of mod.set) out[h.name.toLowerCase()] = h.value;
  for (const h of mod.add) {
    const name = h.name.toLowerCase();
    const prior = out[name];
    if (prior === undefined) out[name] = h.value;
    else if (name === 'set-cookie') out[name] = [...(Array.isArray(prior) ? prior : [prior]), h.value];
    else out[name] = `${Array.isArray(prior) ? prior.join(',') : prior},${h.value}`;
  }
  return out;
}

/** The path part of every match of a route (a match without a path is prefix `/`). */
export function pathMatchesOf(route: Route): PathMatch[] {
  return routeMatchesOf(route).map((m) => m.path ?? { kind: 'prefix', prefix: '/' });
}

/**
 * The longest PathPrefix of `matches` that selects `path` (segment-wise, as the runtime matches);
 * `/` for an empty list, which matches every path; undefined when no prefix match selects it.
 * The route-selection code will hand over the match that selected the request; until then the longest
 * matching prefix stands in, which is the same thing under the translator's rule that ReplacePrefixMatch
 * comes with exactly one PathPrefix match.
 */
export function matchedPrefix(matches: readonly PathMatch[], path: string): string | undefined {
  if (matches.length === 0) return '/';
  let best: string | undefined;
  for (const m of matches) {
    if (m.kind !== 'prefix') continue;
    const prefix = (m.prefix ?? '/').replace(/\/$/, '');
    const hit = prefix === '' || path === prefix || path.startsWith(`${prefix}/`);
    if (hit && (best === undefined || prefix.length > best.replace(/\/$/, '').length)) best = m.prefix ?? '/';
  }
  return best;
}

/**
 * Gateway API ReplacePrefixMatch: the matched prefix (trailing `/` ignored) becomes `replacement`
 * (trailing `/` ignored) and the rest of the path is kept: `/foo/bar` with `/foo` → `/xyz` is `/xyz/bar`,
 * with `/foo` → `` is `/bar`; a path that would be empty is `/`.
 */
export function replacePrefix(path: string, prefix: string, replacement: string): string {
  const p = prefix.replace(/\/$/, '');
  const rest = path.slice(p.length);
  const out = `${replacement.replace(/\/$/, '')}${rest}`;
  if (out === '') return '/';
  return out.startsWith('/') ? out : `/${out}`;
}

/** The path a path modifier makes of `path`; unchanged when the prefix to replace cannot be found. */
export function modifiedPath(path: string, mod: PathModifier | null, matches: readonly PathMatch[]): string {
  if (mod?.kind === 'replaceFullPath') return mod.replaceFullPath ?? path;
  if (mod?.kind === 'replacePrefixMatch') {
    const prefix = matchedPrefix(matches, path);
    return prefix === undefined ? path : replacePrefix(path, prefix, mod.replacePrefixMatch ?? '');
  }
  return path;
}

/** The request target as origin-form: an absolute-form URL (`GET http://h/p`) keeps only path and query. */
export function originPath(url: string | undefined): string {
  if (!url) return '/';
  if (url.startsWith('/')) return url;
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return '/';
  }
}

function splitTarget(target: string): { path: string; query: string } {
  const q = target.indexOf('?');
  return q < 0 ? { path: target, query: '' } : { path: target.slice(0, q), query: target.slice(q) };
}

/** The origin-form target and Host after a URLRewrite (query kept); Host undefined when not rewritten. */
export function rewriteTarget(
  target: string,
  rewrite: Rewrite,
  matches: readonly PathMatch[],
): { target: string; host?: string } {
  const { path, query } = splitTarget(target);
  const out = `${modifiedPath(path, rewrite.path, matches)}${query}`;
  return rewrite.hostname ? { target: out, host: rewrite.hostname } : { target: out };
}

/** Host and port of a Host header value (`a.b`, `a.b:8080`, `[::1]:8080`); port undefined when absent. */
export function parseHost(host: string): { hostname: string; port?: number } {
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host);
  if (!m) return { hostname: host };
  return m[2] ? { hostname: m[1] ?? '', port: Number(m[2]) } : { hostname: m[1] ?? '' };
}

export interface RequestOrigin {
  scheme: 'http' | 'https';
  /** The request's Host header (with its port, if any). */
  host: string;
  /** Origin-form request target: path and query. */
  target: string;
}

/**
 * Status and Location of a RequestRedirect. Unset parts come from the request: scheme, Host name, path
 * and query. The port is the filter's; else the new scheme's well-known port when the filter sets a
 * scheme; else the request's (its Host port, or its scheme's default). A scheme's default port is left out.
 */
export function redirectResponse(
  request: RequestOrigin,
  redirect: Redirect,
  matches: readonly PathMatch[],
): { status: number; location: string } {
  const scheme = redirect.scheme === 'http' || redirect.scheme === 'https' ? redirect.scheme : request.scheme;
  const asked = parseHost(request.host);
  const hostname = redirect.hostname || asked.hostname;
  const port = redirect.port || (redirect.scheme ? DEFAULT_PORT[scheme] : (asked.port ?? DEFAULT_PORT[request.scheme]));
  const { path, query } = splitTarget(request.target);
  const location = `${scheme}://${hostname}${port === DEFAULT_PORT[scheme] ? '' : `:${port}`}${modifiedPath(path, redirect.path, matches)}${query}`;
  // An IR from another producer may carry any number; 302 is Gateway API's default.
  return { status: REDIRECT_CODES.has(redirect.statusCode) ? redirect.statusCode : 302, location };
}

export function schemeOf(req: IncomingMessage): 'http' | 'https' {
  return requestScheme(req);
}

/**
 * Runs before authentication and dispatch: makes every response of the route pass the response header
 * modifier, and answers a redirect. True when the response has been sent (nothing else may run).
 */
export function applyRouteFilters(req: IncomingMessage, res: ServerResponse, route: Route): boolean {
  const f = route.filters;
  if (!f) return false;
  if (f.responseHeaders) modifyResponseHeaders(res, f.responseHeaders);
  if (!f.redirect) return false;
  const local = req.socket.localAddress ?? '';
  const host = req.headers.host || `${local.includes(':') ? `[${local}]` : local}:${req.socket.localPort ?? ''}`;
  const { status, location } = redirectResponse(
    { scheme: schemeOf(req), host, target: originPath(req.url) },
    f.redirect,
    pathMatchesOf(route),
  );
  req.resume();
  res.writeHead(status, { location, 'content-length': '0' }).end();
  return true;
}

/**
 * MCP routes: the proxy terminates MCP and sends its own requests to targets, so a request header
 * modifier can only change what the MCP endpoint and authorization rules see; it runs after
 * authentication, which always sees the client's own headers.
 */
export function withRequestHeaders(req: IncomingMessage, route: Route): IncomingMessage {
  return modifyRequestHeaders(req, route.filters?.requestHeaders);
}

/** Applies `mod` to the request's own headers in place (what the MCP endpoint and authorization read). */
export function modifyRequestHeaders(req: IncomingMessage, mod: HeaderModifier | null | undefined): IncomingMessage {
  if (!mod) return req;
  const next = applyHeaderModifier(req.headers as HeaderMap, mod);
  for (const name of Object.keys(req.headers)) if (!(name in next)) delete req.headers[name];
  Object.assign(req.headers, next);
  return req;
}

/**
 * Every header the response ends up with, whichever way it is written (setHeader, writeHead's
 * argument, or implicitly by end()), passes `mod` once, just before the head is sent.
 */
export function modifyResponseHeaders(res: ServerResponse, mod: HeaderModifier): void {
  const writeHead = res.writeHead.bind(res) as (status: number, reason?: string) => ServerResponse;
  res.writeHead = ((status: number, ...rest: unknown[]): ServerResponse => {
    const reason = typeof rest[0] === 'string' ? rest[0] : undefined;
    const given = rest.find((r): r is OutgoingHttpHeaders | string[] => typeof r === 'object' && r !== null);
    // Headers passed to writeHead win over setHeader ones; folding them in first gives the same result.
    if (Array.isArray(given))
      for (let i = 0; i + 1 < given.length; i += 2) res.setHeader(String(given[i]), String(given[i + 1]));
    else if (given)
      for (const [k, v] of Object.entries(given))
        if (v !== undefined) res.setHeader(k, typeof v === 'number' ? String(v) : v);
    const current: HeaderMap = {};
    for (const [k, v] of Object.entries(res.getHeaders()))
      if (v !== undefined) current[k] = typeof v === 'number' ? String(v) : v;
    const next = applyHeaderModifier(current, mod);
    for (const k of Object.keys(current)) if (!(k in next)) res.removeHeader(k);
    for (const [k, v] of Object.entries(next)) res.setHeader(k, v);
    return reason === undefined ? writeHead(status) : writeHead(status, reason);
  }) as ServerResponse['writeHead'];
}
