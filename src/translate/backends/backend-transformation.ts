// `backend.transformation` of one route → backend edge: applied by the HTTP forwarder, so it reaches the
// backend kinds it serves; on an AI edge each provider carries its own merged one (the LLM forwarder applies
// it per call to that provider); on MCP edges, and per MCP target, it is refused on status (never accepted
// and skipped). Pure. Behaviour: docs/proxy.md "Transformations", docs/llm-providers.md.
import type { BackendInput, BackendRefInput, TransformationInput, TransformationStepInput } from '../../ir/types.js';
import type { IrRefusal } from '../../coverage/effective.js';
import type { EffectivePolicy, MergedFields } from '../policies/policy-merge.js';
import { transformationInput } from '../policies/ir-transformation.js';
import { celReadsMember } from '../../cel/data-plane.js';

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
  if (irBackend?.kind === 'ai') return { refusals: providerBodyRefusals(irBackend, merged, subMerged) };
  const edgeSource = merged.provenance['backend.transformation']?.source;
  for (const [name, m] of Object.entries(subMerged))
    if (m.fields['backend.transformation'] && m.provenance['backend.transformation']?.source !== edgeSource)
      refuse(m, `backend.transformation is not applied per MCP target (${name}) by this proxy`);
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

/** An AI provider's merged `backend.transformation`, less a response step that reads or replaces the body (refused on status). */
export function providerTransformation(m: MergedFields): TransformationInput | undefined {
  const t = m.fields['backend.transformation'];
  if (!t) return undefined;
  const input = transformationInput(t);
  if (input.response && responseReadsBody(input.response)) delete input.response;
  return input.request || input.response ? input : undefined;
}

function responseReadsBody(s: TransformationStepInput): boolean {
  if (s.body !== undefined && s.body !== null) return true;
  const sources = [...(s.set ?? []), ...(s.add ?? [])].map((h) => h.expression ?? '');
  return sources.some((src) => celReadsMember(src, 'response', 'body') || celReadsMember(src, 'response', 'json'));
}

/** Providers whose response step reads or replaces the body: the answer they get is converted (often streamed), so it is not applied. */
function providerBodyRefusals(
  irBackend: BackendInput,
  merged: EffectivePolicy,
  subMerged: Record<string, EffectivePolicy>,
): IrRefusal[] {
  const out: IrRefusal[] = [];
  for (const p of (irBackend.ai?.groups ?? []).flatMap((g) => g.providers ?? [])) {
    const name = p.name ?? '';
    const m = subMerged[name] ?? merged;
    const response = m.fields['backend.transformation']?.response;
    if (!response || !responseReadsBody(transformationInput({ response }).response ?? {})) continue;
    const source = m.provenance['backend.transformation']?.source ?? '';
    const field = source.startsWith('GwPolicy ') ? 'spec.backend.transformation' : 'spec.policies.transformation';
    out.push({
      field: `${field}.response`,
      source,
      reason: `provider ${name}: a response transformation on an AI provider edits the answer's headers only; this one reads or replaces the body, so it is not applied`,
      security: false,
    });
  }
  return out;
}
