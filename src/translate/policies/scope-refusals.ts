// Traffic settings that act on one kind of route only: the coverage table calls them enforced (they are,
// where they apply), so on a route of another kind they are refused here, by field path, instead of being
// accepted and skipped. Which kind a route is comes from its backends: an MCP backend, an ai backend, or
// anything else (forwarded HTTP).
import type { IrRefusal } from '../../coverage/effective.js';
import type { BackendInput as IrBackend, BackendRefInput as IrBackendRef } from '../../ir/types.js';
import { globalRateLimitLlmEntries } from './global-rate-limit.js';
import { mcpPreserveToken } from './ir-policy.js';
import type { EffectivePolicy } from './policy-merge.js';

type RouteKind = 'mcp' | 'llm' | 'forwarded';

/** The refusals of settings that do not act on routes of this route's kind. */
export function scopeRefusals(
  eff: EffectivePolicy,
  edges: readonly IrBackendRef[],
  backends: ReadonlyMap<string, IrBackend>,
): IrRefusal[] {
  const kind = routeKind(edges, backends);
  if (!kind) return [];
  const out: IrRefusal[] = [];
  const refuse = (field: string, key: string, reason: string): void => {
    out.push({ field: `spec.traffic.${field}`, source: eff.provenance[key]?.source ?? '', reason, security: false });
  };
  const on = kind === 'mcp' ? 'MCP routes' : 'LLM routes';
  if (kind !== 'forwarded') {
    if (eff.fields['traffic.hostRewrite'] !== undefined)
      refuse('hostRewrite', 'traffic.hostRewrite', `${on} do not rewrite Host: it applies to forwarded HTTP routes`);
    const buffer = eff.fields['traffic.buffer'];
    if (buffer?.response !== undefined)
      refuse(
        'buffer.response',
        'traffic.buffer',
        `${on} do not buffer answers by this setting: it applies to forwarded HTTP routes`,
      );
    if (eff.fields['traffic.transformation'] !== undefined)
      refuse(
        'transformation',
        'traffic.transformation',
        `${on} do not apply traffic.transformation: it applies to forwarded HTTP routes`,
      );
    if (buffer?.request?.failureMode === 'FailOpen')
      refuse(
        'buffer.request.failureMode',
        'traffic.buffer',
        `FailOpen streams oversized bodies on forwarded HTTP routes only; ${on} refuse them with 413`,
      );
  }
  const jwt = eff.fields['traffic.jwtAuthentication'];
  // With `mcp` the same refusal comes from the security refusals (ir-policy.ts); one reason either way.
  if (kind === 'mcp' && jwt?.preserveToken === true && !jwt.mcp)
    out.push({
      field: 'spec.traffic.jwtAuthentication.preserveToken',
      source: eff.provenance['traffic.jwtAuthentication']?.source ?? '',
      reason: mcpPreserveToken,
      security: true,
    });
  if (kind !== 'llm') {
    const local = eff.fields['traffic.rateLimit']?.local ?? [];
    local.forEach((l, i) => {
      if (l.tokens !== undefined)
        refuse(
          `rateLimit.local[${i}].tokens`,
          'traffic.rateLimit',
          'token limits count LLM usage: they apply to LLM routes only',
        );
    });
    const global = eff.fields['traffic.rateLimit']?.global;
    global?.descriptors.forEach((d, i) => {
      if (d.unit === 'Tokens')
        refuse(
          `rateLimit.global.descriptors[${i}].unit`,
          'traffic.rateLimit',
          'token limits count LLM usage: they apply to LLM routes only',
        );
    });
    // A descriptor left out for want of llmRequest/llm would leave the route unlimited: the route refuses instead.
    for (const path of global ? globalRateLimitLlmEntries(global) : [])
      out.push({
        field: `spec.traffic.rateLimit.global.${path}`,
        source: eff.provenance['traffic.rateLimit']?.source ?? '',
        reason:
          'names llmRequest or llm, which only LLM routes have (read from the request body); this route refuses its requests',
        security: true,
      });
  }
  return out;
}

/** undefined when the route has no usable backend (nothing to act on). */
function routeKind(edges: readonly IrBackendRef[], backends: ReadonlyMap<string, IrBackend>): RouteKind | undefined {
  const first = edges.find((e) => (e.weight ?? 0) > 0) ?? edges[0];
  if (!first) return undefined;
  const backend = backends.get(first.backend ?? '');
  if (backend?.mcp) return 'mcp';
  if (backend?.ai || first.ai) return 'llm';
  return 'forwarded';
}
