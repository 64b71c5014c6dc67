// A route's GwPolicy `traffic` settings as the proxy enforces them, read from the typed `Route.traffic`
// once per snapshot (never from the JSON text in `Route.effective`, which is diagnostics for `gw explain`).
// Pure: plain IR in, plain plan and problems out. Behaviour: docs/proxy.md "Traffic policy".
import type { Problem } from '../../problem.js';
import type {
  DirectResponse as IrDirectResponse,
  HeaderModifier,
  Route,
  Snapshot,
  TrafficPolicy,
} from '../../ir/types.js';
import { resourcesOf } from '../../ir/load.js';
import { compileCel, type CompiledCel } from './cel/env.js';

export interface RetryPlan {
  /** Retries after the first try (Gateway API `attempts`). */
  attempts: number;
  /** Wait before the first retry; doubles for each further one. */
  backoffMs: number;
  codes: ReadonlySet<number>;
}

export interface RequestLimit {
  requests: number;
  intervalMs: number;
  burst: number;
}

/** LLM tokens (input + output) per interval; an answer's usage is counted after it, against later requests. */
export interface TokenLimit {
  tokens: number;
  intervalMs: number;
  burst: number;
}

export interface DirectResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** `traffic.buffer.request` / `.response`: past `maxBytes` the body is refused, or passed on unbuffered with `failOpen`. */
export interface BufferPlan {
  maxBytes: number;
  failOpen: boolean;
}

export type DelayPlan = { kind: 'fixed'; ms: number } | { kind: 'cel'; program: CompiledCel };

export interface TrafficPlan {
  timeouts?: { requestMs: number; backendRequestMs: number };
  retry?: RetryPlan;
  requestHeaders?: HeaderModifier;
  responseHeaders?: HeaderModifier;
  /** Request-count limits, each its own bucket; a request must fit all of them. */
  limits: RequestLimit[];
  /** `tokens` limits (LLM routes): charged with each answer's usage. */
  tokenLimits: TokenLimit[];
  /** Set when the policy asks for a direct response; `unsupported` explains why it cannot be served yet. */
  directResponse?: { kind: 'static'; response: DirectResponse } | { kind: 'unsupported'; reason: string };
  delay?: DelayPlan;
  hostRewrite?: string;
  requestBuffer?: BufferPlan;
  responseBuffer?: BufferPlan;
  /** `traffic.csrf`: origins trusted besides the request's own. */
  csrf?: { additionalOrigins: string[] };
}

/** Gateway API leaves the default open; these are the statuses a retry can plausibly cure. */
export const defaultRetryCodes = [502, 503, 504] as const;
export const defaultBackoffMs = 25;

type FieldProblem = { path: string; message: string };

const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const BREAKS = /[\r\n\0]/;

/** The route's traffic plan and the problems of typed fields a producer filled wrongly (path `traffic.x`). */
export function compileTraffic(route: Route): { plan: TrafficPlan; problems: FieldProblem[] } {
  const plan: TrafficPlan = { limits: [], tokenLimits: [] };
  const problems: FieldProblem[] = [];
  const t: TrafficPolicy | null | undefined = route.traffic;
  if (!t) return { plan, problems };
  const bad = (path: string, message: string): void => {
    problems.push({ path: `traffic.${path}`, message });
  };
  if (t.timeouts && (t.timeouts.requestMs || t.timeouts.backendRequestMs))
    plan.timeouts = { requestMs: t.timeouts.requestMs, backendRequestMs: t.timeouts.backendRequestMs };
  if (t.retry && t.retry.attempts > 0) {
    if (t.retry.attempts > 10) bad('retry.attempts', `must be at most 10, got ${t.retry.attempts}`);
    else
      plan.retry = {
        attempts: t.retry.attempts,
        backoffMs: t.retry.backoffMs ?? defaultBackoffMs,
        codes: new Set(t.retry.codes?.length ? t.retry.codes : defaultRetryCodes),
      };
  }
  if (t.requestHeaders) plan.requestHeaders = headerModifierOf(t.requestHeaders, 'requestHeaders', bad);
  if (t.responseHeaders) plan.responseHeaders = headerModifierOf(t.responseHeaders, 'responseHeaders', bad);
  // `?? []`: checkSnapshot also sees producers' snapshots before decoding fills repeated fields.
  (t.localRateLimits ?? []).forEach((l, i) => {
    if (l.intervalMs <= 0) bad(`localRateLimits[${i}].intervalMs`, 'must be above 0');
    else if (l.tokens) plan.tokenLimits.push({ tokens: l.tokens, intervalMs: l.intervalMs, burst: l.burst });
    else if (l.requests) plan.limits.push({ requests: l.requests, intervalMs: l.intervalMs, burst: l.burst });
    else bad(`localRateLimits[${i}]`, 'must set requests or tokens');
  });
  if (t.directResponse) plan.directResponse = directResponseOf(t.directResponse, bad);
  if (t.delay) plan.delay = delayOf(t.delay, bad);
  if (t.hostRewrite !== undefined) {
    if (!t.hostRewrite || BREAKS.test(t.hostRewrite)) bad('hostRewrite', 'must be a host name');
    else plan.hostRewrite = t.hostRewrite;
  }
  if (t.requestBuffer)
    plan.requestBuffer = { maxBytes: Number(t.requestBuffer.maxBytes), failOpen: !!t.requestBuffer.failOpen };
  if (t.responseBuffer)
    plan.responseBuffer = { maxBytes: Number(t.responseBuffer.maxBytes), failOpen: !!t.responseBuffer.failOpen };
  if (t.csrf) plan.csrf = { additionalOrigins: (t.csrf.additionalOrigins ?? []).map((o) => o.toLowerCase()) };
  return { plan, problems };
}

/** Problems of every route's traffic fields, for the snapshot check: a malformed value NACKs the snapshot. */
export function trafficProblems(snapshot: Snapshot, source: string): Problem[] {
  return [...resourcesOf(snapshot, 'route').values()].flatMap((route) =>
    compileTraffic(route).problems.map((p) => ({ source, object: `Route ${route.name}`, ...p })),
  );
}

/** The HTTPRoute rule's own `timeouts` when it sets any (the more specific setting), else the policy's. */
export function routeTimeouts(
  route: Route,
  traffic?: TrafficPlan,
): { requestMs: number; backendRequestMs: number } | undefined {
  return route.timeouts?.requestMs || route.timeouts?.backendRequestMs
    ? (route.timeouts ?? undefined)
    : traffic?.timeouts;
}

function headerModifierOf(
  m: HeaderModifier,
  path: string,
  bad: (path: string, message: string) => void,
): HeaderModifier {
  const ok = (h: { name: string; value: string }, where: string): boolean => {
    if (TOKEN.test(h.name) && !BREAKS.test(h.value)) return true;
    bad(where, 'must have a valid header name and a value without line breaks');
    return false;
  };
  return {
    set: (m.set ?? []).filter((h, i) => ok(h, `${path}.set[${i}]`)),
    add: (m.add ?? []).filter((h, i) => ok(h, `${path}.add[${i}]`)),
    remove: m.remove ?? [],
  };
}

function delayOf(
  d: NonNullable<TrafficPolicy['delay']>,
  bad: (path: string, message: string) => void,
): DelayPlan | undefined {
  if (!d.expression) return d.durationMs ? { kind: 'fixed', ms: d.durationMs } : undefined;
  try {
    return { kind: 'cel', program: compileCel(d.expression, ['request']) };
  } catch (err) {
    bad('delay.expression', (err as Error).message);
    return undefined;
  }
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

function directResponseOf(
  d: IrDirectResponse,
  bad: (path: string, message: string) => void,
): TrafficPlan['directResponse'] {
  if (d.conditional?.length) return { kind: 'unsupported', reason: 'conditional direct responses are not served yet' };
  if (d.status < 200 || d.status > 599)
    return void bad('directResponse.status', `must be between 200 and 599, got ${d.status}`);
  let body = d.body ?? '';
  if (d.bodyExpression !== undefined) {
    const value = constantCel(d.bodyExpression);
    if (value === undefined)
      return { kind: 'unsupported', reason: 'a bodyExpression that reads the request is not served yet' };
    body = value;
  }
  const headers: Record<string, string> = {};
  for (const [i, h] of (d.headers ?? []).entries()) {
    if (!TOKEN.test(h.name)) return void bad(`directResponse.headers[${i}].name`, 'must be a valid header name');
    const value = constantCel(h.valueExpression);
    if (value === undefined)
      return {
        kind: 'unsupported',
        reason: `header ${h.name} uses a CEL value that reads the request, which is not served yet`,
      };
    if (BREAKS.test(value))
      return void bad(`directResponse.headers[${i}].valueExpression`, 'must not yield line breaks');
    headers[h.name.toLowerCase()] = value;
  }
  return { kind: 'static', response: { status: d.status, body, headers } };
}
