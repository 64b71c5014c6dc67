// `backend.transformation` of one route → backend edge: applied by the HTTP forwarder, so it reaches the
// backend kinds it serves; on MCP and AI edges, and per MCP target or AI provider, it is refused on status
// (never accepted and skipped). Pure. Behaviour: docs/proxy.md "Transformations".
import type { BackendInput, BackendRefInput } from '../../ir/types.js';
import type { IrRefusal } from '../../coverage/effective.js';
import type { EffectivePolicy } from '../policies/policy-merge.js';
import { transformationInput } from '../policies/ir-transformation.js';

/** Backend kinds the HTTP forwarder serves. */
const FORWARDED_KINDS = new Set(['static', 'a2a', 'dynamicForwardProxy', 'aws']);

export function edgeTransformation(
  irBackend: BackendInput | undefined,
  merged: EffectivePolicy,
  subMerged: Record<string, EffectivePolicy>,
): { transformation?: BackendRefInput['transformation']; refusals: IrRefusal[] } {
  const refusals: IrRefusal[] = [];
  const refuse = (m: EffectivePolicy, reason: string): void => {
    const source = m.provenance['backend.transformation']?.source ?? '';
    const field = source.startsWith('GwPolicy ') ? 'spec.backend.transformation' : 'spec.policies.transformation';
    refusals.push({ field, source, reason, security: false });
  };
  const edgeSource = merged.provenance['backend.transformation']?.source;
  for (const [name, m] of Object.entries(subMerged))
    if (m.fields['backend.transformation'] && m.provenance['backend.transformation']?.source !== edgeSource)
      refuse(m, `backend.transformation is not applied per MCP target or AI provider (${name}) by this proxy`);
  const t = merged.fields['backend.transformation'];
  if (!t) return { refusals };
  const kind = irBackend?.kind ?? 'this';
  if (!FORWARDED_KINDS.has(kind)) {
    refuse(
      merged,
      `backend.transformation applies to HTTP backends (static, a2a, dynamicForwardProxy, aws), not to ${kind} backends`,
    );
    return { refusals };
  }
  return { transformation: transformationInput(t), refusals };
}
