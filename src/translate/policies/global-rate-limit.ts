// GwPolicy `traffic.rateLimit.global` → the typed IR the proxy enforces (one ShouldRateLimit call per request
// to an Envoy rate-limit service), or why it cannot be enforced as written: the routes it reaches then refuse
// their requests rather than run unlimited.
import type { GlobalRateLimit } from '../../api/index.js';
import type { GlobalRateLimitInput } from '../../ir/types.js';
import { celCompileProblem, celWholeMapProblem, expressionVariables } from '../../cel/data-plane.js';
import { parseDurationMs } from '../../ir/duration.js';
import type { PolicyBackendResolver } from './ext-auth.js';

/** Envoy's rate-limit filter caps nothing; a deadline past a minute only hides an outage. */
const maxTimeoutMs = 60_000;

/** Every descriptor entry expression that does not compile on the proxy (path under traffic.rateLimit.global, message). */
export function globalRateLimitCelProblems(g: GlobalRateLimit): { path: string; message: string }[] {
  return g.descriptors.flatMap((d, i) =>
    d.entries.flatMap((e, j) => {
      const message =
        celWholeMapProblem(e.expression) ?? celCompileProblem(e.expression, expressionVariables.globalRateLimitLlm);
      return message === undefined ? [] : [{ path: `descriptors[${i}].entries[${j}].expression`, message }];
    }),
  );
}

/** Paths (under traffic.rateLimit.global) of the entries that name `llmRequest` or `llm`: only LLM routes read a request body to fill them. */
export function globalRateLimitLlmEntries(g: GlobalRateLimit): string[] {
  return g.descriptors.flatMap((d, i) =>
    d.entries.flatMap((e, j) =>
      celCompileProblem(e.expression, expressionVariables.globalRateLimit) !== undefined &&
      celCompileProblem(e.expression, expressionVariables.globalRateLimitLlm) === undefined
        ? [`descriptors[${i}].entries[${j}].expression`]
        : [],
    ),
  );
}

/**
 * The typed form, or why the proxy cannot enforce it. Expressions pass as text even when they do not compile:
 * the proxy then refuses the route naming the expression, and the policy's status says so.
 */
export function toGlobalRateLimit(g: GlobalRateLimit, resolve: PolicyBackendResolver): GlobalRateLimitInput | string {
  let url = g.url;
  if (url !== undefined && !/^grpcs?:\/\/[^/]+\/?$/i.test(url))
    return 'url: must be grpc://host:port or grpcs://host:port (the rate-limit service speaks gRPC; no path)';
  let tls;
  if (g.backendRef) {
    const r = resolve('traffic.rateLimit', g.backendRef);
    if ('problem' in r) return `backendRef: ${r.problem}`;
    url = r.url.replace(/^https?:/i, r.tls ? 'grpcs:' : 'grpc:');
    tls = r.tls;
  }
  if (url === undefined) return 'one of url and backendRef is needed';
  let timeoutMs = 0;
  if (g.timeout !== undefined) {
    const ms = parseDurationMs(g.timeout);
    if (ms === undefined || ms <= 0 || ms > maxTimeoutMs)
      return `timeout: must be a duration between 1ms and 1m, got ${JSON.stringify(g.timeout)}`;
    timeoutMs = ms;
  }
  return {
    url: url.replace(/\/+$/, ''),
    ...(tls ? { tls } : {}),
    domain: g.domain,
    descriptors: g.descriptors.map((d) => ({
      entries: d.entries.map((e) => ({ key: e.name, expression: e.expression })),
      tokens: d.unit === 'Tokens',
    })),
    failOpen: g.failureMode === 'FailOpen',
    timeoutMs,
  };
}
