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
import { compileCel, expressionVariables, type CompiledCel } from './cel/env.js';
import { compileAt } from './cel/snapshot-cel.js';
import { compileTransformation, type TransformPlan } from './transformation.js';

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

/** A direct response whose body or header values are CEL over the request, evaluated per request. */
export interface DirectAnswer {
  status: number;
  body: string | CompiledCel;
  headers: (readonly [string, CompiledCel])[];
}

/** `directResponse.conditional` (or one unconditional entry): the first entry whose condition holds answers. */
export interface DirectChoice {
  when?: CompiledCel;
  answer: DirectAnswer;
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
  /** Set when the policy asks for a direct response: fixed, or chosen and filled per request. */
  directResponse?: { kind: 'static'; response: DirectResponse } | { kind: 'cel'; choices: DirectChoice[] };
  /** `traffic.transformation`: forwarded HTTP routes (the translator refuses it on others). */
  transformation?: TransformPlan;
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
  if (t.transformation) {
    const tr = compileTransformation(t.transformation, 'transformation', bad);
    if (tr) plan.transformation = tr;
  }
  if (t.csrf) plan.csrf = { additionalOrigins: (t.csrf.additionalOrigins ?? []).map((o) => o.toLowerCase()) };
  return { plan, problems };
}

/** Problems of every route's traffic fields and edge transformations, for the snapshot check: a malformed value NACKs the snapshot. */
export function trafficProblems(snapshot: Snapshot, source: string): Problem[] {
  return [...resourcesOf(snapshot, 'route').values()].flatMap((route) => {
    const problems = compileTraffic(route).problems;
    route.backends.forEach((ref, i) => {
      if (ref.transformation)
        compileTransformation(ref.transformation, `backends[${i}].transformation`, (path, message) =>
          problems.push({ path, message }),
        );
    });
    return problems.map((p) => ({ source, object: `Route ${route.name}`, ...p }));
  });
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

type Bad = (path: string, message: string) => void;

function directResponseOf(d: IrDirectResponse, bad: Bad): TrafficPlan['directResponse'] {
  if (d.conditional?.length) {
    const choices: DirectChoice[] = [];
    for (const [i, c] of d.conditional.entries()) {
      const at = `directResponse.conditional[${i}]`;
      const when =
        c.condition !== undefined && c.condition !== null
          ? compileAt(c.condition, expressionVariables.directResponse, `${at}.condition`, bad)
          : undefined;
      const answer = c.response && directAnswerOf(c.response, `${at}.response`, bad);
      if (!answer || (c.condition && !when)) return undefined;
      choices.push({ ...(when ? { when } : {}), answer });
    }
    return { kind: 'cel', choices };
  }
  const answer = directAnswerOf(d, 'directResponse', bad);
  if (!answer) return undefined;
  const fixed = staticAnswer(d);
  return fixed ? { kind: 'static', response: fixed } : { kind: 'cel', choices: [{ answer }] };
}

function directAnswerOf(d: IrDirectResponse, at: string, bad: Bad): DirectAnswer | undefined {
  if (d.status < 200 || d.status > 599) return void bad(`${at}.status`, `must be between 200 and 599, got ${d.status}`);
  let body: DirectAnswer['body'] = d.body ?? '';
  if (d.bodyExpression !== undefined && d.bodyExpression !== null) {
    const c = compileAt(d.bodyExpression, expressionVariables.directResponse, `${at}.bodyExpression`, bad);
    if (!c) return undefined;
    body = c;
  }
  const headers: DirectAnswer['headers'] = [];
  for (const [i, h] of (d.headers ?? []).entries()) {
    if (!TOKEN.test(h.name)) return void bad(`${at}.headers[${i}].name`, 'must be a valid header name');
    const c = compileAt(
      h.valueExpression,
      expressionVariables.directResponse,
      `${at}.headers[${i}].valueExpression`,
      bad,
    );
    if (!c) return undefined;
    headers.push([h.name.toLowerCase(), c]);
  }
  return { status: d.status, body, headers };
}

/** The answer when no expression reads the request: computed once here instead of per request. */
function staticAnswer(d: IrDirectResponse): DirectResponse | undefined {
  const body = d.bodyExpression !== undefined && d.bodyExpression !== null ? constantCel(d.bodyExpression) : d.body;
  if (body === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const h of d.headers ?? []) {
    const value = constantCel(h.valueExpression);
    if (value === undefined || BREAKS.test(value)) return undefined;
    headers[h.name.toLowerCase()] = value;
  }
  return { status: d.status, body: body ?? '', headers };
}
