// Every prompt guard decision of an LLM route counted in gw_llm_guard_verdicts_total (phase, verdict):
// one wrapper around the edge's guards, built once per compiled route, so no guard step has to count.
import type { ProxyMetrics } from '../metrics.js';
import type { GuardVerdict, LlmGuards } from '../guard/types.js';

export function countedGuards(guards: LlmGuards | undefined, metrics: ProxyMetrics): LlmGuards | undefined {
  if (!guards) return undefined;
  const counted =
    (phase: 'request' | 'response', check: NonNullable<LlmGuards['request']>): NonNullable<LlmGuards['request']> =>
    async (body, ctx) => {
      const verdict: GuardVerdict = await check(body, ctx);
      metrics.guardVerdicts.inc({ phase, verdict: verdict.action });
      return verdict;
    };
  return {
    ...(guards.request ? { request: counted('request', guards.request.bind(guards)) } : {}),
    ...(guards.response ? { response: counted('response', guards.response.bind(guards)) } : {}),
    ...(guards.heldStreams ? { heldStreams: guards.heldStreams } : {}),
  };
}
