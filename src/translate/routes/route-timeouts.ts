// HTTPRoute rule `timeouts` (Gateway API GEP-1742) → IR RouteTimeouts in milliseconds.
import type { Problem } from '../../problem.js';
import type { RouteTimeoutsInput } from '../../ir/types.js';
import type { RouteRule } from '../objects/gateway-api.js';
import { rec, recs, type Rec } from '../objects/read.js';
import { parseDurationMs } from '../../ir/duration.js';

/** The rule's timeouts for the IR route, or undefined when the rule sets none (or sets them invalidly). */
export function ruleTimeouts(rule: RouteRule): RouteTimeoutsInput | undefined {
  const t = rule.timeouts;
  if (!t || timeoutProblems(t, '', '', '').length > 0) return undefined;
  const ms = (s: string | undefined) => (s === undefined ? 0 : (parseDurationMs(s) ?? 0));
  const out = { requestMs: ms(t.request), backendRequestMs: ms(t.backendRequest) };
  return out.requestMs || out.backendRequestMs ? out : undefined;
}

/** Problems of every rule's `timeouts` in an HTTPRoute spec as written (validate.ts runs it on unchecked input). */
export function routeTimeoutProblems(spec: Rec, source: string, object: string): Problem[] {
  return recs(spec.rules).flatMap((rule, i) => {
    const t = rec(rule.timeouts);
    return t ? timeoutProblems(t, source, object, `spec.rules[${i}].timeouts`) : [];
  });
}

function timeoutProblems(t: Rec, source: string, object: string, path: string): Problem[] {
  const out: Problem[] = [];
  const parsed: Record<string, number> = {};
  for (const field of ['request', 'backendRequest'] as const) {
    const v = t[field];
    if (v === undefined) continue;
    const ms = typeof v === 'string' ? parseDurationMs(v) : undefined;
    if (ms === undefined)
      out.push({
        source,
        object,
        path: `${path}.${field}`,
        message: `must be a duration such as 10s, 1m30s or 500ms, got ${JSON.stringify(v)}`,
      });
    else parsed[field] = ms;
  }
  const { request, backendRequest } = parsed;
  // Gateway API's own CEL rule: a backend request cannot outlive the request it serves (0 = no deadline).
  if (request !== undefined && backendRequest !== undefined && request > 0 && backendRequest > request) {
    out.push({
      source,
      object,
      path: `${path}.backendRequest`,
      message: `must not be longer than request (${String(t.request)}), got ${String(t.backendRequest)}`,
    });
  }
  return out;
}
