// `health` (passive outlier detection) of a backend edge, an AI provider or a GwModel, resolved for the IR:
// the schema's defaults filled and the duration in ms. Where the proxy keeps no pool for it (dynamic forward
// proxies) it is refused on status rather than accepted and dropped.
// Behaviour: docs/proxy.md "Passive health"; the shape: docs/api.md "Health".
import type { BackendFull } from '../../api/index.js';
import type { BackendInput, OutlierDetectionInput } from '../../ir/types.js';
import { parseDurationMs } from '../../ir/duration.js';
import type { IrRefusal } from '../../coverage/effective.js';
import type { EffectivePolicy } from '../policies/policy-merge.js';

/** Repeated ejections double up to this (Envoy's max_ejection_time default), or to the base when it is longer. */
export const MAX_EJECTION_MS = 300_000;

type Health = NonNullable<BackendFull['health']>;

/** Kinds whose edges the proxy keeps an ejection pool for: the route's HTTP backends (AgentCore ones too), an MCP backend's targets, an AI backend's providers. */
const POOLED_KINDS = new Set(['static', 'a2a', 'aws', 'mcp', 'ai']);

export function outlierDetection(h: Health, source: string): OutlierDetectionInput {
  const base = parseDurationMs(h.ejectionDuration ?? '30s') ?? 30_000;
  return {
    consecutiveFailures: h.consecutiveFailures ?? 5,
    baseEjectionMs: base,
    maxEjectionPercent: h.maxEjectionPercent ?? 50,
    maxEjectionMs: Math.max(MAX_EJECTION_MS, base),
    source,
    // Compiled by the object's validation (validate-gw.ts): one that does not compile never gets here.
    ...(h.unhealthyCondition ? { unhealthyCondition: h.unhealthyCondition } : {}),
  };
}

/** The edge's `health` for an HTTP or MCP backend (and each MCP target's own), and refusals where this edge kind has no pool. */
export function edgeHealth(
  irBackend: BackendInput | undefined,
  merged: EffectivePolicy,
  subMerged: Record<string, EffectivePolicy>,
): { health?: OutlierDetectionInput; targetHealth?: Record<string, OutlierDetectionInput>; refusals: IrRefusal[] } {
  const kind = irBackend?.kind ?? '';
  const refusals: IrRefusal[] = [];
  const refuse = (m: EffectivePolicy, reason: string, sub = ''): void => {
    const source = m.provenance['backend.health']?.source ?? '';
    const field = source.startsWith('GwPolicy ') ? 'spec.backend.health' : 'spec.policies.health';
    refusals.push({ field: `${field}${sub}`, source, reason, security: false });
  };
  const h = merged.fields['backend.health'];
  if (h && !POOLED_KINDS.has(kind))
    refuse(
      merged,
      `backend.health applies to HTTP (static, a2a, Service, AgentCore), MCP and AI backends, not to ${kind || 'this'} backends`,
    );
  if (kind === 'ai' || !POOLED_KINDS.has(kind)) return { refusals };
  const health = h ? mcpAware(kind, merged, refuse) : undefined;
  if (kind !== 'mcp') return { ...(health ? { health } : {}), refusals };
  const targetHealth: Record<string, OutlierDetectionInput> = {};
  for (const [name, m] of Object.entries(subMerged))
    if (
      m.fields['backend.health'] &&
      m.provenance['backend.health']?.source !== merged.provenance['backend.health']?.source
    )
      targetHealth[name] = mcpAware(kind, m, refuse);
  return {
    ...(health ? { health } : {}),
    ...(Object.keys(targetHealth).length > 0 ? { targetHealth } : {}),
    refusals,
  };
}

/**
 * The resolved `health` of one merged policy; on MCP edges without `unhealthyCondition`, which is refused
 * there (a target's answers are JSON-RPC over several transports, not one HTTP response to judge).
 */
function mcpAware(
  kind: string,
  m: EffectivePolicy,
  refuse: (m: EffectivePolicy, reason: string, sub: string) => void,
): OutlierDetectionInput {
  const h = m.fields['backend.health'] as Health;
  const out = outlierDetection(h, m.provenance['backend.health']?.source ?? '');
  if (kind !== 'mcp' || out.unhealthyCondition === undefined) return out;
  refuse(
    m,
    'unhealthyCondition does not apply to MCP targets: connect errors, resets, timeouts and 5xx or 429 statuses count as failures',
    '.unhealthyCondition',
  );
  const { unhealthyCondition: _dropped, ...rest } = out;
  return rest;
}
