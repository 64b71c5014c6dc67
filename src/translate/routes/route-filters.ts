// HTTPRoute / GRPCRoute rule `filters` → IR RouteFilters, and their validation as Gateway API's own
// schema and CEL rules would do it (objects that skipped admission must not reach the proxy half-valid).
// The validation reads the spec as written (validate.ts runs it on unchecked input, and its messages quote
// odd values); the translation reads the narrowed rule of a route that passed it.
// Behaviour and choices: docs/proxy.md "Route filters".
import type { HeaderInput, HeaderModifierInput, FilterPathModifierInput, RouteFiltersInput } from '../../ir/types.js';
import type { Problem } from '../../problem.js';
import type { HeaderModifier, PathModifier, RouteRule } from '../objects/gateway-api.js';
import { arr, rec, recs, str, type Rec } from '../objects/read.js';

/** Filter type → the field holding its settings. */
const FIELD: Record<string, string> = {
  RequestHeaderModifier: 'requestHeaderModifier',
  ResponseHeaderModifier: 'responseHeaderModifier',
  RequestRedirect: 'requestRedirect',
  URLRewrite: 'urlRewrite',
  RequestMirror: 'requestMirror',
  ExtensionRef: 'extensionRef',
  CORS: 'cors',
  ExternalAuth: 'externalAuth',
};

const TYPES: Record<string, readonly string[]> = {
  HTTPRoute: [
    'RequestHeaderModifier',
    'ResponseHeaderModifier',
    'RequestMirror',
    'RequestRedirect',
    'URLRewrite',
    'ExtensionRef',
    'CORS',
    'ExternalAuth',
  ],
  GRPCRoute: ['RequestHeaderModifier', 'ResponseHeaderModifier', 'RequestMirror', 'ExtensionRef'],
};

// Known to Gateway API but not run by this proxy: reported, never skipped (a skipped auth or mirror
// filter would silently change what the user asked for).
const UNSUPPORTED: Record<string, string> = {
  RequestMirror: 'RequestMirror filters are not supported by this gateway',
  ExtensionRef: 'ExtensionRef filters are not supported by this gateway (it defines no extension filter kinds)',
  CORS: 'CORS filters are not supported by this gateway; use a GwPolicy with traffic.cors',
  ExternalAuth: 'ExternalAuth filters are not supported by this gateway; use a GwPolicy with traffic.extAuth',
};

// RFC 9110 token, as Gateway API's HTTPHeaderName pattern.
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+\-.^_`|~]+$/;
// Gateway API PreciseHostname.
const HOSTNAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
// What may stand in a request target's path (RFC 3986 pchar, '/' and '%'); no query, no spaces.
const PATH_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;
const STATUS_CODES = [301, 302, 303, 307, 308];
const MAX_HEADERS = 16;
const MAX_FILTERS = 16;

/**
 * The rule's filters for the IR route, or undefined when it has none. Only routes without problems are
 * translated, and validate.ts refuses a route whose filters routeFilterProblems finds fault with.
 */
export function ruleFilters(rule: RouteRule): RouteFiltersInput | undefined {
  const filters = rule.filters ?? [];
  if (filters.length === 0) return undefined;
  const out: RouteFiltersInput = {};
  for (const f of filters) {
    const type = f.type;
    if (type === 'RequestHeaderModifier') out.requestHeaders = headerModifier(f.requestHeaderModifier ?? {});
    if (type === 'ResponseHeaderModifier') out.responseHeaders = headerModifier(f.responseHeaderModifier ?? {});
    if (type === 'RequestRedirect') {
      const r = f.requestRedirect ?? {};
      out.redirect = prune({
        scheme: r.scheme,
        hostname: r.hostname,
        path: pathModifier(r.path),
        port: r.port,
        statusCode: r.statusCode,
      });
    }
    if (type === 'URLRewrite') {
      const r = f.urlRewrite ?? {};
      out.rewrite = prune({ hostname: r.hostname, path: pathModifier(r.path) });
    }
  }
  return out;
}

/** Problems of every rule's filters (and backendRef filters) in an HTTPRoute/GRPCRoute spec, with field paths. */
export function routeFilterProblems(kind: string, spec: Rec, source: string, object: string): Problem[] {
  return recs(spec.rules).flatMap((rule, i) => ruleFilterProblems(kind, rule, source, object, `spec.rules[${i}]`));
}

function ruleFilterProblems(kind: string, rule: Rec, source: string, object: string, at: string): Problem[] {
  const out: Problem[] = [];
  const bad = (path: string, message: string): void => {
    out.push({ source, object, path, message });
  };
  const known = TYPES[kind] ?? [];
  const seen = new Map<string, number>();
  recs(rule.filters).forEach((f, j) => {
    const path = `${at}.filters[${j}]`;
    const type = str(f.type);
    if (type === undefined || !known.includes(type)) {
      bad(`${path}.type`, `must be one of ${known.join(', ')}, got ${JSON.stringify(f.type ?? null)}`);
      return;
    }
    const field = FIELD[type] ?? '';
    for (const [other, otherField] of Object.entries(FIELD)) {
      if (other !== type && f[otherField] !== undefined)
        bad(`${path}.${otherField}`, `must not be set when type is ${type}`);
    }
    const unsupported = UNSUPPORTED[type];
    if (unsupported) {
      bad(`${path}.type`, unsupported);
      return;
    }
    const first = seen.get(type);
    if (first !== undefined)
      bad(`${path}.type`, `${type} may appear only once in a rule, already at filters[${first}]`);
    else seen.set(type, j);
    const settings = rec(f[field]);
    if (!settings) {
      bad(`${path}.${field}`, `must be set when type is ${type}`);
      return;
    }
    const p = `${path}.${field}`;
    if (type === 'RequestHeaderModifier' || type === 'ResponseHeaderModifier') headerModifierProblems(settings, p, bad);
    if (type === 'RequestRedirect') redirectProblems(settings, p, bad);
    if (type === 'URLRewrite') {
      if (settings.hostname !== undefined) hostnameProblems(settings.hostname, `${p}.hostname`, bad);
      if (settings.path !== undefined) pathModifierProblems(settings.path, `${p}.path`, bad);
    }
    if (type === 'RequestRedirect' || type === 'URLRewrite')
      prefixMatchProblems(rule, settings, type, `${p}.path`, bad);
  });
  if (arr(rule.filters).length > MAX_FILTERS)
    bad(`${at}.filters`, `must have at most ${MAX_FILTERS} items, got ${arr(rule.filters).length}`);
  if (seen.has('RequestRedirect') && seen.has('URLRewrite'))
    bad(`${at}.filters`, 'may not contain both RequestRedirect and URLRewrite');
  // Gateway API's CEL rule: a redirected request never reaches a backend.
  if (seen.has('RequestRedirect') && arr(rule.backendRefs).length > 0)
    bad(`${at}.backendRefs`, 'must be empty in a rule with a RequestRedirect filter');
  recs(rule.backendRefs).forEach((r, k) => {
    if (arr(r.filters).length > 0)
      bad(
        `${at}.backendRefs[${k}].filters`,
        'backendRef filters are not supported by this gateway; set the filters on the rule',
      );
  });
  return out;
}

type Report = (path: string, message: string) => void;

function headerModifierProblems(m: Rec, path: string, bad: Report): void {
  for (const list of ['set', 'add'] as const) {
    if (m[list] === undefined) continue;
    if (!Array.isArray(m[list])) {
      bad(`${path}.${list}`, 'must be a list');
      continue;
    }
    const entries = recs(m[list]);
    if (entries.length > MAX_HEADERS)
      bad(`${path}.${list}`, `must have at most ${MAX_HEADERS} items, got ${entries.length}`);
    const names = new Map<string, number>();
    entries.forEach((h, k) => {
      const at = `${path}.${list}[${k}]`;
      if (headerNameProblem(h.name, `${at}.name`, bad))
        duplicateCheck(names, String(h.name), k, `${at}.name`, list, bad);
      const v = h.value;
      if (typeof v !== 'string') bad(`${at}.value`, `must be a string, got ${JSON.stringify(v ?? null)}`);
      // CR, LF or NUL would split or end the header line on the wire.
      else if (/[\r\n\0]/.test(v)) bad(`${at}.value`, 'must not contain CR, LF or NUL characters');
      else if (v.length > 4096) bad(`${at}.value`, `must be at most 4096 characters, got ${v.length}`);
    });
  }
  if (m.remove === undefined) return;
  if (!Array.isArray(m.remove)) {
    bad(`${path}.remove`, 'must be a list');
    return;
  }
  if (m.remove.length > MAX_HEADERS)
    bad(`${path}.remove`, `must have at most ${MAX_HEADERS} items, got ${m.remove.length}`);
  const names = new Map<string, number>();
  m.remove.forEach((n, k) => {
    if (headerNameProblem(n, `${path}.remove[${k}]`, bad))
      duplicateCheck(names, String(n), k, `${path}.remove[${k}]`, 'remove', bad);
  });
}

/** True when the name is valid (a problem was not reported). */
function headerNameProblem(name: unknown, path: string, bad: Report): boolean {
  if (typeof name === 'string' && name.length <= 256 && HEADER_NAME.test(name)) return true;
  bad(
    path,
    `must be an HTTP header name (letters, digits and !#$%&'*+-.^_\`|~, at most 256), got ${JSON.stringify(name ?? null)}`,
  );
  return false;
}

// Header names are case-insensitive, so `X-A` and `x-a` in one list name the same header.
function duplicateCheck(
  names: Map<string, number>,
  name: string,
  k: number,
  path: string,
  list: string,
  bad: Report,
): void {
  const first = names.get(name.toLowerCase());
  if (first !== undefined)
    bad(path, `duplicates ${list}[${first}] (header names are case-insensitive), got ${JSON.stringify(name)}`);
  else names.set(name.toLowerCase(), k);
}

function redirectProblems(r: Rec, path: string, bad: Report): void {
  if (r.scheme !== undefined && r.scheme !== 'http' && r.scheme !== 'https')
    bad(`${path}.scheme`, `must be http or https, got ${JSON.stringify(r.scheme)}`);
  if (r.hostname !== undefined) hostnameProblems(r.hostname, `${path}.hostname`, bad);
  if (r.port !== undefined && (!Number.isInteger(r.port) || (r.port as number) < 1 || (r.port as number) > 65535))
    bad(`${path}.port`, `must be between 1 and 65535, got ${JSON.stringify(r.port)}`);
  if (r.statusCode !== undefined && !STATUS_CODES.includes(r.statusCode as number))
    bad(`${path}.statusCode`, `must be one of ${STATUS_CODES.join(', ')}, got ${JSON.stringify(r.statusCode)}`);
  if (r.path !== undefined) pathModifierProblems(r.path, `${path}.path`, bad);
}

function hostnameProblems(h: unknown, path: string, bad: Report): void {
  if (typeof h !== 'string' || h.length > 253 || !HOSTNAME.test(h))
    bad(path, `must be a lower-case DNS name without a port or wildcard, got ${JSON.stringify(h)}`);
}

function pathModifierProblems(p: unknown, path: string, bad: Report): void {
  const m = rec(p);
  if (!m) {
    bad(path, 'must be an object');
    return;
  }
  const type = m.type;
  if (type !== 'ReplaceFullPath' && type !== 'ReplacePrefixMatch') {
    bad(`${path}.type`, `must be ReplaceFullPath or ReplacePrefixMatch, got ${JSON.stringify(type ?? null)}`);
    return;
  }
  const field = type === 'ReplaceFullPath' ? 'replaceFullPath' : 'replacePrefixMatch';
  const other = type === 'ReplaceFullPath' ? 'replacePrefixMatch' : 'replaceFullPath';
  if (m[other] !== undefined) bad(`${path}.${other}`, `must not be set when type is ${type}`);
  const v = m[field];
  if (typeof v !== 'string') {
    bad(`${path}.${field}`, `must be set when type is ${type}`);
    return;
  }
  // An empty prefix replacement is meaningful (`/foo/bar` → `/bar`); an empty full path is not.
  const absolute = v.startsWith('/') || (type === 'ReplacePrefixMatch' && v === '');
  if (!absolute || v.length > 1024 || !PATH_CHARS.test(v)) {
    bad(
      `${path}.${field}`,
      `must be an absolute path (starting with /, no query, spaces or control characters, at most 1024), got ${JSON.stringify(v)}`,
    );
  }
}

// Gateway API's CEL rule: a prefix can only be replaced when the rule has exactly one match and it is a
// PathPrefix (no matches, or a match without a path, defaults to PathPrefix `/`).
function prefixMatchProblems(rule: Rec, settings: Rec, type: string, path: string, bad: Report): void {
  const p = rec(settings.path);
  if (p?.type !== 'ReplacePrefixMatch') return;
  const matches = recs(rule.matches);
  const pathType = rec(matches[0]?.path)?.type ?? 'PathPrefix';
  if (matches.length > 1 || pathType !== 'PathPrefix') {
    bad(
      `${path}.type`,
      `ReplacePrefixMatch in a ${type} filter needs exactly one match with a PathPrefix path, got ${matches.length} match(es)${matches.length === 1 ? ` of type ${String(pathType)}` : ''}`,
    );
  }
}

function headerModifier(m: HeaderModifier): HeaderModifierInput {
  const headers = (v: HeaderModifier['set']): HeaderInput[] =>
    (v ?? []).map((h) => ({ name: (h.name ?? '').toLowerCase(), value: h.value ?? '' }));
  return prune({
    set: nonEmpty(headers(m.set)),
    add: nonEmpty(headers(m.add)),
    remove: nonEmpty((m.remove ?? []).map((n) => n.toLowerCase())),
  });
}

function pathModifier(p: PathModifier | undefined): FilterPathModifierInput | undefined {
  if (p?.type === 'ReplaceFullPath') return { kind: 'replaceFullPath', replaceFullPath: p.replaceFullPath ?? '' };
  if (p?.type === 'ReplacePrefixMatch')
    return { kind: 'replacePrefixMatch', replacePrefixMatch: p.replacePrefixMatch ?? '' };
  return undefined;
}

function nonEmpty<T>(list: T[]): T[] | undefined {
  return list.length > 0 ? list : undefined;
}

/** Drops unset keys so the IR (and its golden text) holds only what the user set. */
function prune<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
