// `backend.mcp.guardrails` of one route → backend edge → IR McpGuardrails, with every processor's
// `backendRef` resolved to a URL. Pure: reads go through the context, so a Service appearing or
// disappearing re-translates the edge. A processor that cannot be resolved stays in the IR with a
// `problem`, which the proxy turns into a rejection of every method it matches (never unguarded).
import type { McpGuardrailPhaseInput, McpGuardrailProcessorInput, McpGuardrailsInput } from '../../ir/types.js';
import type { BackendFull } from '../../api/index.js';
import type { EffectivePolicy, MergedFields } from '../policies/policy-merge.js';
import { celCompileProblem, expressionVariables } from '../../cel/data-plane.js';
import { condition, type ParentStatus } from '../status/conditions.js';
import { readAny, type Ctx } from '../objects/context.js';
import { serviceHost } from './backends.js';
import type { McpSettings } from '../objects/gw-types.js';
import { serviceSpec } from '../objects/gateway-api.js';
import type { UncheckedPolicySpec } from '../objects/gw-unchecked.js';
import { stableStringify } from '../objects/read.js';
import { referenceAllowed } from '../objects/refs.js';
import { GROUP } from '../objects/types.js';

const PHASES: Record<string, McpGuardrailPhaseInput> = {
  Off: 'GUARDRAIL_OFF',
  Request: 'GUARDRAIL_REQUEST',
  Response: 'GUARDRAIL_RESPONSE',
  Full: 'GUARDRAIL_FULL',
};

type Processor = NonNullable<McpSettings['guardrails']>['processors'][number];
type Remote = NonNullable<Processor['remote']>;

/** Exact, `prefix*`, `*suffix` or `*`: one wildcard, at an end. */
const METHOD_PATTERN = /^(\*|[^*]+|[^*]+\*|\*[^*]+)$/;

/** The edge's guardrails, or undefined when its merged backend policy has none. */
export function mcpGuardrails(ctx: Ctx, merged: MergedFields): McpGuardrailsInput | undefined {
  const guardrails = merged.fields['backend.mcp']?.guardrails;
  if (!guardrails) return undefined;
  const origin = merged.provenance['backend.mcp']?.source ?? '';
  return {
    processors: guardrails.processors.map((p, i) =>
      processor(ctx, origin, p, `${origin ? `${origin} ` : ''}backend.mcp.guardrails.processors[${i}]`),
    ),
  };
}

/** One sentence per processor that cannot run, for the route's ResolvedRefs condition. */
export function guardrailProblems(ref: { mcpGuardrails?: McpGuardrailsInput | null }): string[] {
  return (ref.mcpGuardrails?.processors ?? []).flatMap((p) => (p.problem ? [`${p.source}: ${p.problem}`] : []));
}

/** Like the TLS case: known per edge after the parents' conditions were built, so ResolvedRefs turns false here. */
export function markGuardrailProblem(parents: ParentStatus[], message: string, gen: number, now: string): void {
  for (const p of parents) {
    const i = p.conditions.findIndex((c) => c.type === 'ResolvedRefs');
    if (i >= 0 && p.conditions[i]?.status === 'True')
      p.conditions[i] = condition('ResolvedRefs', false, 'InvalidMcpGuardrails', message, gen, now);
  }
}

/** Why a processor cannot run: `Invalid` for its own spec, a reference reason for what its backendRef names. */
interface ProcessorProblem {
  reason: 'Invalid' | 'RefNotPermitted' | 'BackendNotFound' | 'InvalidKind';
  /** Path under the processor, e.g. `remote.backendRef`. */
  field: string;
  message: string;
}

function processorProblems(ctx: Ctx, origin: string, p: Processor): ProcessorProblem[] {
  const problems: ProcessorProblem[] = [];
  for (const pattern of Object.keys(p.methods)) {
    if (!METHOD_PATTERN.test(pattern))
      problems.push({
        reason: 'Invalid',
        field: 'methods',
        message: `key ${JSON.stringify(pattern)} must be an exact method, "prefix*", "*suffix" or "*"`,
      });
  }
  for (const [name, source] of Object.entries(p.remote?.metadata ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const why = celCompileProblem(source, expressionVariables.guardrailMetadata);
    if (why) problems.push({ reason: 'Invalid', field: `remote.metadata.${name}`, message: why });
  }
  const target = processorUrl(ctx, origin, p.remote ?? {});
  if (typeof target !== 'string') problems.push(target);
  return problems;
}

function processor(ctx: Ctx, origin: string, p: Processor, source: string): McpGuardrailProcessorInput {
  const remote: Remote = p.remote ?? {};
  const methods: Record<string, McpGuardrailPhaseInput> = {};
  for (const [pattern, phase] of Object.entries(p.methods)) methods[pattern] = PHASES[phase] ?? 'GUARDRAIL_OFF';
  const target = processorUrl(ctx, origin, remote);
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(remote.metadata ?? {})) metadata[k] = v;
  return {
    methods,
    url: typeof target === 'string' ? target : '',
    failureMode: remote.failureMode === 'FailOpen' ? 'FAIL_OPEN' : 'FAIL_CLOSED',
    metadata,
    allowedRequestHeaders: headerList(remote.allowedRequestHeaders),
    disallowedRequestHeaders: headerList(remote.disallowedRequestHeaders),
    problem: processorProblems(ctx, origin, p)
      .map((x) => `${x.field}: ${x.message}`)
      .join('; '),
    source,
  };
}

/**
 * For a GwPolicy's status: what is wrong with the processors its own `backend.mcp.guardrails` declares,
 * judged in the policy's namespace as the routes judge them (the proxy rejects every method such a
 * processor matches). `invalid`: its spec (Accepted=False); `refs`: what its backendRefs name (ResolvedRefs=False).
 */
export function policyGuardrailProblems(
  ctx: Ctx,
  policyKey: string,
  backend: BackendFull,
): { invalid: string[]; refs: { reason: string; message: string }[] } {
  const out: ReturnType<typeof policyGuardrailProblems> = { invalid: [], refs: [] };
  (backend.mcp?.guardrails?.processors ?? []).forEach((p, i) => {
    for (const x of processorProblems(ctx, `GwPolicy ${policyKey}`, p)) {
      const message = `spec.backend.mcp.guardrails.processors[${i}].${x.field}: ${x.message}`;
      if (x.reason === 'Invalid') out.invalid.push(message);
      else out.refs.push({ reason: x.reason, message });
    }
  });
  return out;
}

/** `url` as written, or the Service's cluster address; references are relative to the policy's namespace. */
function processorUrl(ctx: Ctx, origin: string, remote: Remote): string | ProcessorProblem {
  const url = remote.url;
  if (url) return url;
  const ref = remote.backendRef;
  if (!ref) return { reason: 'Invalid', field: 'remote', message: 'needs a backendRef or a url' };
  const [fromKind = 'GwPolicy', fromKey = ''] = origin.split(' ');
  const fromNs = fromKey.includes('/') ? fromKey.slice(0, fromKey.indexOf('/')) : '';
  const group = ref.group ?? '',
    kind = ref.kind ?? 'Service',
    name = ref.name;
  const ns = ref.namespace ?? fromNs;
  const bad = (reason: ProcessorProblem['reason'], message: string): ProcessorProblem => ({
    reason,
    field: 'remote.backendRef',
    message,
  });
  if (group !== GROUP.core || kind !== 'Service')
    return bad('InvalidKind', `to ${kind}${group ? `.${group}` : ''} is not supported; a processor is a core Service`);
  if (
    !referenceAllowed(ctx, { group: GROUP.gw, kind: fromKind, namespace: fromNs }, { group, kind, namespace: ns, name })
  ) {
    return bad('RefNotPermitted', `Service ${ns}/${name} is in another namespace and no ReferenceGrant allows it`);
  }
  const svc = readAny(ctx, 'Service', `${ns}/${name}`);
  if (!svc) return bad('BackendNotFound', `Service ${ns}/${name} does not exist`);
  const port = ref.port;
  const ports = (serviceSpec(svc).ports ?? []).map((sp) => sp.port);
  if (port === undefined || !ports.includes(port))
    return bad('BackendNotFound', `Service ${ns}/${name} has no port ${port ?? '(none given)'}`);
  return `http://${serviceHost(name, ns)}:${port}/`;
}

/** Namespaced names (`ns/name`) of the Services a policy's guardrail processors reference, so a Service change refreshes its status. */
export function guardrailServices(policyNs: string, backend: UncheckedPolicySpec['backend']): string[] {
  return (backend?.mcp?.guardrails?.processors ?? []).flatMap((p) => {
    const ref = p.remote?.backendRef;
    return ref ? [`${ref.namespace ?? policyNs}/${ref.name ?? ''}`] : [];
  });
}

function headerList(v: readonly string[] | undefined): string[] {
  return [...new Set((v ?? []).map((h) => h.toLowerCase()))].sort();
}

/**
 * Guardrails set for one MCP target only (a GwPolicy with `sectionName`) are not enforced per target
 * yet; rather than leave that target unguarded, the edge gets a processor that rejects every method.
 */
export function refuseTargetGuardrails(
  ref: { mcpGuardrails?: McpGuardrailsInput | null },
  edgePolicy: EffectivePolicy,
  targetPolicies: Record<string, EffectivePolicy>,
): void {
  const edge = stableStringify(edgePolicy.fields['backend.mcp']);
  for (const [target, p] of Object.entries(targetPolicies).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const value = p.fields['backend.mcp'];
    if (value === undefined || stableStringify(value) === edge || !value.guardrails) continue;
    const source = p.provenance['backend.mcp']?.source ?? '';
    ((ref.mcpGuardrails ??= {}).processors ??= []).push({
      methods: { '*': 'GUARDRAIL_FULL' },
      url: '',
      failureMode: 'FAIL_CLOSED',
      metadata: {},
      allowedRequestHeaders: [],
      disallowedRequestHeaders: [],
      problem: `guardrails for MCP target ${target} alone are not supported; set backend.mcp.guardrails on the backend or route instead`,
      source: `${source ? `${source} ` : ''}backend.mcp.guardrails`,
    });
  }
}
