// A route's GwPolicy `traffic` settings as the proxy enforces them, read from `Route.effective` (canonical
// JSON per field) once per snapshot. Pure: plain IR in, plain plan and problems out. Which fields are
// enforced and how: docs/proxy.md "Traffic policy".
import type { Problem } from '../../problem.js';
import type { Route, Snapshot } from '../../ir/types.js';
import { resourcesOf } from '../../ir/load.js';
import { unenforcedAuthFields } from '../../translate/ir-policy.js';
import { parseDurationMs } from '../../ir/duration.js';
import { compileCel } from './cel/env.js';
import type { HeaderModifier } from '../http/route-filters.js';

export interface RetryPlan {
  /** Retries after the first try (Gateway API `attempts`). */
  attempts: number;
  /** Wait before the first retry; doubles for each further one. */
  backoffMs: number;
  codes: ReadonlySet<number>;
}

export type RateUnit = 'Seconds' | 'Minutes' | 'Hours';
export interface RequestLimit { requests: number; unit: RateUnit; burst: number }

export interface DirectResponse { status: number; body: string; headers: Record<string, string> }

export interface TrafficPlan {
  timeouts?: { requestMs: number; backendRequestMs: number };
  retry?: RetryPlan;
  requestHeaders?: HeaderModifier;
  responseHeaders?: HeaderModifier;
  /** Request-count limits, each its own bucket; a request must fit all of them. */
  limits: RequestLimit[];
  /** `tokens` limits (LLM traffic): parsed, not enforced yet. */
  tokenLimits: number;
  /** Set when the policy asks for a direct response; `unsupported` explains why it cannot be served yet. */
  directResponse?: { kind: 'static'; response: DirectResponse } | { kind: 'unsupported'; reason: string };
}

/** Gateway API leaves the default open; these are the statuses a retry can plausibly cure. */
export const defaultRetryCodes = [502, 503, 504] as const;
export const defaultBackoffMs = 25;

type FieldProblem = { path: string; message: string };
type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): v is number => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;

/** The route's traffic plan and the problems of every traffic field it could not read (path `effective.fields["traffic.x"].y`). */
export function compileTraffic(route: Route): { plan: TrafficPlan; problems: FieldProblem[] } {
  const plan: TrafficPlan = { limits: [], tokenLimits: 0 };
  const problems: FieldProblem[] = [];
  const fields = route.effective?.fields ?? {};
  const read = (field: string, parse: (v: unknown, bad: (path: string, message: string) => void) => void): void => {
    const text = fields[`traffic.${field}`];
    if (text === undefined) return;
    const base = `effective.fields["traffic.${field}"]`;
    const bad = (path: string, message: string): void => { problems.push({ path: `${base}${path}`, message }); };
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      bad('', 'must be JSON text');
      return;
    }
    parse(v, bad);
  };
  read('timeouts', (v, bad) => { plan.timeouts = timeoutsOf(v, bad); });
  read('retry', (v, bad) => { plan.retry = retryOf(v, bad); });
  read('headerModifiers', (v, bad) => {
    if (!isObj(v)) return bad('', 'must be an object');
    plan.requestHeaders = headerModifierOf(v.request, '.request', bad);
    plan.responseHeaders = headerModifierOf(v.response, '.response', bad);
  });
  read('rateLimit', (v, bad) => {
    const local = isObj(v) ? v.local : undefined;
    if (!Array.isArray(local)) return bad('.local', 'must be a list');
    local.forEach((l, i) => {
      const limit = localLimitOf(l, `.local[${i}]`, bad);
      if (limit === 'tokens') plan.tokenLimits++;
      else if (limit) plan.limits.push(limit);
    });
  });
  read('directResponse', (v, bad) => { plan.directResponse = directResponseOf(v, bad); });
  return { plan, problems };
}

/** Problems of every route's traffic fields, for the snapshot check: a malformed value NACKs the snapshot. */
export function trafficProblems(snapshot: Snapshot, source: string): Problem[] {
  return [...resourcesOf(snapshot, 'route').values()].flatMap((route) =>
    compileTraffic(route).problems.map((p) => ({ source, object: `Route ${route.name}`, ...p })));
}

function duration(v: unknown, path: string, bad: (path: string, message: string) => void): number | undefined {
  if (v === undefined) return undefined;
  const ms = typeof v === 'string' ? parseDurationMs(v) : undefined;
  if (ms === undefined) bad(path, `must be a duration such as 10s, 1m30s or 500ms, got ${JSON.stringify(v)}`);
  return ms;
}

/** The HTTPRoute rule's own `timeouts` when it sets any (the more specific setting), else the policy's. */
export function routeTimeouts(route: Route, traffic?: TrafficPlan): { requestMs: number; backendRequestMs: number } | undefined {
  return route.timeouts?.requestMs || route.timeouts?.backendRequestMs ? route.timeouts ?? undefined : traffic?.timeouts;
}

function timeoutsOf(v: unknown, bad: (path: string, message: string) => void): TrafficPlan['timeouts'] {
  if (!isObj(v)) return void bad('', 'must be an object');
  const out = { requestMs: duration(v.request, '.request', bad) ?? 0, backendRequestMs: duration(v.backendRequest, '.backendRequest', bad) ?? 0 };
  return out.requestMs || out.backendRequestMs ? out : undefined;
}

function retryOf(v: unknown, bad: (path: string, message: string) => void): RetryPlan | undefined {
  if (!isObj(v)) return void bad('', 'must be an object');
  const attempts = v.attempts ?? 1;
  if (!isInt(attempts, 0, 10)) bad('.attempts', `must be an integer between 0 and 10, got ${JSON.stringify(v.attempts)}`);
  const codes = v.codes ?? [...defaultRetryCodes];
  if (!Array.isArray(codes)) bad('.codes', 'must be a list');
  else codes.forEach((c, i) => { if (!isInt(c, 400, 599)) bad(`.codes[${i}]`, `must be an HTTP status between 400 and 599, got ${JSON.stringify(c)}`); });
  const backoffMs = duration(v.backoff, '.backoff', bad) ?? defaultBackoffMs;
  if (!isInt(attempts, 0, 10) || !Array.isArray(codes) || attempts === 0) return undefined;
  return { attempts, backoffMs, codes: new Set(codes as number[]) };
}

function headerModifierOf(v: unknown, path: string, bad: (path: string, message: string) => void): HeaderModifier | undefined {
  if (v === undefined) return undefined;
  if (!isObj(v)) return void bad(path, 'must be an object');
  const headers = (field: 'set' | 'add'): { name: string; value: string }[] => {
    const list = v[field] ?? [];
    if (!Array.isArray(list)) {
      bad(`${path}.${field}`, 'must be a list');
      return [];
    }
    return list.flatMap((h, i) => {
      if (isObj(h) && typeof h.name === 'string' && /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(h.name) && typeof h.value === 'string' && !/[\r\n\0]/.test(h.value)) return [{ name: h.name, value: h.value }];
      bad(`${path}.${field}[${i}]`, 'must have a valid header name and a value without line breaks');
      return [];
    });
  };
  const remove = v.remove ?? [];
  if (!Array.isArray(remove) || !remove.every((n) => typeof n === 'string')) bad(`${path}.remove`, 'must be a list of header names');
  return { set: headers('set'), add: headers('add'), remove: Array.isArray(remove) ? remove.filter((n): n is string => typeof n === 'string') : [] };
}

function localLimitOf(v: unknown, path: string, bad: (path: string, message: string) => void): RequestLimit | 'tokens' | undefined {
  if (!isObj(v)) return void bad(path, 'must be an object');
  const unit = v.unit;
  if (unit !== 'Seconds' && unit !== 'Minutes' && unit !== 'Hours') return void bad(`${path}.unit`, `must be Seconds, Minutes or Hours, got ${JSON.stringify(unit)}`);
  const burst = v.burst ?? 0;
  if (!isInt(burst, 0)) return void bad(`${path}.burst`, `must be an integer of at least 0, got ${JSON.stringify(burst)}`);
  if ((v.requests === undefined) === (v.tokens === undefined)) return void bad(path, 'must set exactly one of requests and tokens');
  if (v.tokens !== undefined) return isInt(v.tokens, 1) ? 'tokens' : void bad(`${path}.tokens`, `must be an integer of at least 1, got ${JSON.stringify(v.tokens)}`);
  if (!isInt(v.requests, 1)) return void bad(`${path}.requests`, `must be an integer of at least 1, got ${JSON.stringify(v.requests)}`);
  return { requests: v.requests, unit, burst };
}

/** A CEL value the proxy can serve without a request: an expression that names no variable and yields a string. */
function constantCel(source: string): string | undefined {
  try {
    const value = compileCel(source, []).evaluate({});
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function directResponseOf(v: unknown, bad: (path: string, message: string) => void): TrafficPlan['directResponse'] {
  if (!isObj(v)) return void bad('', 'must be an object');
  if (v.conditional !== undefined) return { kind: 'unsupported', reason: 'conditional direct responses are not served yet' };
  if (!isInt(v.status, 200, 599)) return void bad('.status', `must be an integer between 200 and 599, got ${JSON.stringify(v.status)}`);
  if (v.body !== undefined && (typeof v.body !== 'string' || v.body.length > 4096)) return void bad('.body', 'must be a string of at most 4096 characters');
  let body = typeof v.body === 'string' ? v.body : '';
  if (typeof v.bodyExpression === 'string') {
    const value = constantCel(v.bodyExpression);
    if (value === undefined) return { kind: 'unsupported', reason: 'a bodyExpression that reads the request is not served yet' };
    body = value;
  }
  const headers: Record<string, string> = {};
  const list = v.headers ?? [];
  if (!Array.isArray(list)) return void bad('.headers', 'must be a list');
  for (const [i, h] of list.entries()) {
    if (!isObj(h) || typeof h.name !== 'string' || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(h.name) || typeof h.value !== 'string') return void bad(`.headers[${i}]`, 'must have a valid header name and a CEL value');
    const value = constantCel(h.value);
    if (value === undefined) return { kind: 'unsupported', reason: `header ${h.name} uses a CEL value that reads the request, which is not served yet` };
    if (/[\r\n\0]/.test(value)) return void bad(`.headers[${i}].value`, 'must not yield line breaks');
    headers[h.name.toLowerCase()] = value;
  }
  return { kind: 'static', response: { status: v.status, body, headers } };
}

export interface AuthEnforcement {
  /** Whether the runtime was given the route security factory (JWT and MCP auth, CEL authorization). */
  security: boolean;
}

/** The route's traffic fields (`traffic.x`) that ask for authentication or authorization this proxy would not apply. */
export function unenforcedAuth(route: Route, how: AuthEnforcement): string[] {
  const fields = route.effective?.fields ?? {};
  const out: string[] = unenforcedAuthFields.filter((f) => fields[`traffic.${f}`] !== undefined).map((f) => `traffic.${f}`);
  // Without a typed form the translator could not express the setting faithfully (backendRef keys, CEL location).
  const jwtTyped = route.policy?.mcpAuthentication ?? route.policy?.jwtAuthentication;
  if (fields['traffic.jwtAuthentication'] !== undefined && (!jwtTyped || !how.security)) out.push('traffic.jwtAuthentication');
  if (fields['traffic.basicAuthentication'] !== undefined && (!route.policy?.basicAuthentication || !how.security)) out.push('traffic.basicAuthentication');
  if (fields['traffic.apiKeyAuthentication'] !== undefined && (!route.policy?.apiKeyAuthentication || !how.security)) out.push('traffic.apiKeyAuthentication');
  // One route, one credential check (they all default to the Authorization header): a combination is refused rather than half applied.
  const methods = ['jwtAuthentication', 'basicAuthentication', 'apiKeyAuthentication'].filter((f) => fields[`traffic.${f}`] !== undefined);
  if (methods.length > 1) out.push(methods.map((f) => `traffic.${f}`).join(' with '));
  if (fields['traffic.authorization'] !== undefined && !how.security) out.push('traffic.authorization');
  // The translator leaves extAuthorization unset when it cannot express the policy (gRPC, conditional, a missing backendRef).
  if (fields['traffic.extAuth'] !== undefined && !route.policy?.extAuthorization) out.push('traffic.extAuth');
  // A backend-level extAuth (GwPolicy backend.extAuth) rides on the edge and has no typed form yet: refuse, never skip.
  const edgeExtAuth = (p: { fields: Record<string, string> } | null | undefined): boolean => p?.fields['backend.extAuth'] !== undefined;
  if (route.backends.some((b) => edgeExtAuth(b.policy) || Object.values(b.targetPolicies ?? {}).some(edgeExtAuth))) out.push('backend.extAuth');
  return out.sort();
}
