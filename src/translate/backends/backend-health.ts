// `health` (passive outlier detection) of a backend edge, an AI provider or a GwModel, resolved for the IR:
// the schema's defaults filled and the duration in ms. Where the proxy keeps no pool for it (MCP edges and
// targets, dynamic forward proxies, AgentCore) it is refused on status rather than accepted and dropped.
// Behaviour: docs/proxy.md "Passive health"; the shape: docs/api.md "Health".
import type { BackendFull } from '../../api/index.js';
import type { BackendInput, OutlierDetectionInput } from '../../ir/types.js';
import { parseDurationMs } from '../../ir/duration.js';
import type { IrRefusal } from '../../coverage/effective.js';
import type { EffectivePolicy } from '../policies/policy-merge.js';

/** Repeated ejections double up to this (Envoy's max_ejection_time default), or to the base when it is longer. */
export const MAX_EJECTION_MS = 300_000;

/** Kinds whose edges the proxy keeps an ejection pool for: the route's HTTP backends, an AI backend's providers. */
type Health = NonNullable<BackendFull['health']>;

const POOLED_KINDS = new Set(['static', 'a2a', 'ai']);

export function outlierDetection(h: Health, source: string): OutlierDetectionInput {
  const base = parseDurationMs(h.ejectionDuration ?? '30s') ?? 30_000;
  return {
    consecutiveFailures: h.consecutiveFailures ?? 5,
    baseEjectionMs: base,
    maxEjectionPercent: h.maxEjectionPercent ?? 50,
    maxEjectionMs: Math.max(MAX_EJECTION_MS, base),
    source,
  };
}

/** The edge's `health` for an HTTP backend, and refusals where this edge kind has no pool. */
export function edgeHealth(
  irBackend: BackendInput | undefined,
  merged: EffectivePolicy,
  subMerged: Record<string, EffectivePolicy>,
): { health?: OutlierDetectionInput; refusals: IrRefusal[] } {
  const kind = irBackend?.kind ?? '';
  const refusals: IrRefusal[] = [];
  const refuse = (m: EffectivePolicy, reason: string): void => {
    const source = m.provenance['backend.health']?.source ?? '';
    const field = source.startsWith('GwPolicy ') ? 'spec.backend.health' : 'spec.policies.health';
    refusals.push({ field, source, reason, security: false });
  };
  const h = merged.fields['backend.health'];
  if (h && !POOLED_KINDS.has(kind))
    refuse(
      merged,
      `backend.health applies to HTTP (static, a2a, Service) and AI backends, not to ${kind || 'this'} backends`,
    );
  if (kind === 'mcp')
    for (const [name, m] of Object.entries(subMerged))
      if (
        m.fields['backend.health'] &&
        m.provenance['backend.health']?.source !== merged.provenance['backend.health']?.source
      )
        refuse(m, `backend.health is not applied per MCP target (${name}) by this proxy`);
  if (!h || (kind !== 'static' && kind !== 'a2a')) return { refusals };
  return { health: outlierDetection(h, merged.provenance['backend.health']?.source ?? ''), refusals };
}
