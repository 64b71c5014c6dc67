// HTTPRoute and GRPCRoute rule matches → IR RouteMatch, plus the precedence tie-breakers of a rule.
// Checks what the CRD schema cannot (regex syntax) and what standalone YAML may get wrong, so a bad
// rule is reported and dropped instead of reaching the proxy.
import { irRegexError } from '../../ir/regex.js';
import { fieldPath } from '../../problem.js';
import type { PathMatchInput, RouteMatchInput, RouteOrderInput, ValueMatchInput } from '../../ir/types.js';
import type { RouteMatch, RouteRule, ValueMatch } from '../objects/gateway-api.js';
import type { StoredObject } from '../objects/types.js';

export interface RuleMatches {
  matches: RouteMatchInput[];
  /** `spec.rules[1].matches[0].path.value: is not a valid regular expression: …`; non-empty drops the rule. */
  problems: string[];
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'];

type Bad = (path: (string | number)[], message: string) => void;

export function ruleMatches(kind: string, rule: RouteRule, ruleIndex: number): RuleMatches {
  const problems: string[] = [];
  const base = ['spec', 'rules', ruleIndex, 'matches'];
  const ms = rule.matches ?? [];
  const matches =
    ms.length === 0
      ? [{ path: { kind: 'prefix', prefix: '/' }, headers: [], queryParams: [], method: '' } satisfies RouteMatchInput]
      : ms.map((m, i) => {
          const bad: Bad = (path, message) => problems.push(`${fieldPath([...base, i, ...path])}: ${message}`);
          return kind === 'GRPCRoute' ? grpcMatch(m, bad) : httpMatch(m, bad);
        });
  return { matches, problems };
}

/** Creation time as fixed-width ISO text so text order is time order; empty when unknown. */
export function routeOrder(route: StoredObject, rule: number): RouteOrderInput {
  const ts = route.obj.metadata.creationTimestamp;
  const t = ts ? Date.parse(ts) : NaN;
  return { created: Number.isNaN(t) ? '' : new Date(t).toISOString(), key: route.key, rule };
}

function httpMatch(m: RouteMatch, bad: Bad): RouteMatchInput {
  const p = m.path ?? {};
  const type = p.type ?? 'PathPrefix';
  const value = p.value ?? '/';
  let path: PathMatchInput;
  if (type === 'RegularExpression') {
    path = { kind: 'regex', regex: value };
    checkRegex(value, ['path', 'value'], bad);
  } else {
    if (type !== 'Exact' && type !== 'PathPrefix')
      bad(['path', 'type'], `must be Exact, PathPrefix or RegularExpression, got ${type}`);
    if (!value.startsWith('/')) bad(['path', 'value'], `must start with /, got ${JSON.stringify(value)}`);
    path = type === 'Exact' ? { kind: 'exact', exact: value } : { kind: 'prefix', prefix: value };
  }
  const method = m.method ?? '';
  if (method && !METHODS.includes(method)) bad(['method'], `must be one of ${METHODS.join(', ')}, got ${method}`);
  return {
    path,
    headers: valueMatches(m.headers ?? [], 'headers', (n) => n.toLowerCase(), bad),
    queryParams: valueMatches(m.queryParams ?? [], 'queryParams', (n) => n, bad),
    method,
  };
}

/** gRPC calls are `POST /<service>/<method>`; an unset service or method matches any one path segment. */
function grpcMatch(m: RouteMatch, bad: Bad): RouteMatchInput {
  const headers = valueMatches(m.headers ?? [], 'headers', (n) => n.toLowerCase(), bad);
  const meth = m.grpcMethod;
  const svc = meth?.service || undefined,
    method = meth?.method || undefined;
  const out = (path: PathMatchInput): RouteMatchInput => ({ path, headers, queryParams: [], method: '' });
  if (!svc && !method) return out({ kind: 'prefix', prefix: '/' });
  const type = meth?.type ?? 'Exact';
  if (type === 'RegularExpression') {
    if (svc) checkRegex(svc, ['method', 'service'], bad);
    if (method) checkRegex(method, ['method', 'method'], bad);
    return out({ kind: 'regex', regex: `/(?:${svc ?? '[^/]+'})/(?:${method ?? '[^/]+'})` });
  }
  if (type !== 'Exact') bad(['method', 'type'], `must be Exact or RegularExpression, got ${type}`);
  if (svc && method) return out({ kind: 'exact', exact: `/${svc}/${method}` });
  if (svc) return out({ kind: 'prefix', prefix: `/${svc}/` });
  return out({ kind: 'regex', regex: `/[^/]+/${escapeRegex(method ?? '')}` });
}

/** Only the first entry per name counts (Gateway API); later duplicates are ignored. */
function valueMatches(
  list: readonly ValueMatch[],
  field: string,
  normalize: (name: string) => string,
  bad: Bad,
): ValueMatchInput[] {
  const seen = new Set<string>();
  const out: ValueMatchInput[] = [];
  list.forEach((h, i) => {
    const name = normalize(h.name ?? '');
    const value = h.value ?? '';
    const type = h.type ?? 'Exact';
    if (!name) bad([field, i, 'name'], 'must be set');
    if (type !== 'Exact' && type !== 'RegularExpression')
      bad([field, i, 'type'], `must be Exact or RegularExpression, got ${type}`);
    if (type === 'RegularExpression') checkRegex(value, [field, i, 'value'], bad);
    if (seen.has(name)) return;
    seen.add(name);
    out.push(
      type === 'RegularExpression' ? { name, kind: 'regex', regex: value } : { name, kind: 'exact', exact: value },
    );
  });
  return out;
}

function checkRegex(source: string, path: (string | number)[], bad: Bad): void {
  const why = irRegexError(source);
  if (why) bad(path, `is not a valid regular expression: ${why}`);
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
