// The backend edges of one route rule: each backendRef resolved to a Service port or a GwBackend, the IR
// backend it names, and the edge's merged backend policy with TLS, credentials, guards and refusals.
import type { BackendInput, BackendRefInput } from '../../ir/types.js';
import { mergedRefusals, objectRefusals, uniqueRefusals, type IrRefusal } from '../../coverage/effective.js';
import { backendAi, promptCachingRefusals } from '../backends/backend-ai.js';
import { edgeCredential } from '../backends/backend-auth.js';
import { policyBackendResolver } from '../policies/ext-auth.js';
import { backendTls, identityLackingSource } from '../backends/backend-tls.js';
import { edgeConnection } from '../backends/backend-connection.js';
import { edgeHealth } from '../backends/backend-health.js';
import { edgeTransformation } from '../backends/backend-transformation.js';
import { serviceBackendTls } from '../backends/backend-tls-policy.js';
import { gwBackendName, serviceBackendName, translateGwBackend, translateService } from '../backends/backends.js';
import { mcpGuardrails, refuseTargetGuardrails } from '../backends/mcp-guardrails.js';
import { edgePromptGuard, promptGuardLookup } from '../backends/prompt-guard.js';
import type { BackendFull, GwBackendSpec } from '../../api/index.js';
import { memo, readAny, type Ctx } from '../objects/context.js';
import { serviceEndpoints } from '../objects/endpoint-slices.js';
import { parseDurationMs } from '../../ir/duration.js';
import { serviceSpec, type RouteRule } from '../objects/gateway-api.js';
import { gwSpec } from '../objects/gw-objects.js';
import { referenceAllowed } from '../objects/refs.js';
import { refKind } from '../objects/store.js';
import { GROUP, displayName, objectKey, type StoredObject } from '../objects/types.js';
import { closedFieldName, invalidObjectRefusals } from '../policies/invalid-objects.js';
import { backendPolicy, type GatewayPolicies, type Leveled } from '../policies/policies.js';
import { fieldsOf } from '../policies/policy-fields.js';
import type { EffectivePolicy } from '../policies/policy-merge.js';
import { validAttachments, type Attachment } from '../policies/policy-targets.js';
import type { RouteSink } from './route-sink.js';

/** A backendRef that resolved: a Service port, or a valid GwBackend with its typed spec. */
export type ResolvedRef = { entry: StoredObject; weight: number } & (
  { kind: 'Service'; port: number } | { kind: 'GwBackend'; spec: GwBackendSpec }
);

export function resolveBackendRefs(
  ctx: Ctx,
  route: StoredObject,
  rule: RouteRule,
): { refs: ResolvedRef[]; problems: { reason: string; message: string }[]; refusals: IrRefusal[] } {
  const ns = route.obj.metadata.namespace ?? '';
  const refs: ResolvedRef[] = [];
  const problems: { reason: string; message: string }[] = [];
  // An invalid GwBackend that sets security fields refuses the rule's traffic rather than drop out of it (issue 31).
  const refusals: IrRefusal[] = [];
  for (const r of rule.backendRefs ?? []) {
    const group = r.group ?? '',
      kindName = r.kind ?? 'Service',
      name = r.name ?? '';
    const tns = r.namespace ?? ns;
    if (group === GROUP.gw && kindName === 'GwModel') continue; // model routing: GwModels attach to the route instead
    const kind = refKind(group, kindName, 'Service');
    if (kind !== 'Service' && kind !== 'GwBackend') {
      problems.push({
        reason: 'InvalidKind',
        message: `backendRef kind ${group ? `${group}/` : ''}${kindName} is not supported`,
      });
      continue;
    }
    if (
      !referenceAllowed(
        ctx,
        { group: GROUP.gateway, kind: route.kind, namespace: ns },
        { group, kind, namespace: tns, name },
      )
    ) {
      problems.push({
        reason: 'RefNotPermitted',
        message: `${kind} ${tns}/${name} is in another namespace and no ReferenceGrant allows it`,
      });
      continue;
    }
    const entry = readAny(ctx, kind, `${tns}/${name}`);
    if (!entry || entry.problems.length > 0) {
      const closed = entry && kind === 'GwBackend' ? invalidObjectRefusals(kind, entry) : [];
      refusals.push(...closed);
      problems.push({
        reason: 'BackendNotFound',
        message: `${kind} ${tns}/${name} ${entry ? 'is invalid' : 'does not exist'}${closed.length ? `: it sets ${closed.map(closedFieldName).join(', ')}, so the rule answers 503 policy_not_enforced until it is fixed` : ''}`,
      });
      continue;
    }
    const port = r.port;
    const weight = r.weight ?? 1;
    if (kind === 'Service') {
      const ports = (serviceSpec(entry).ports ?? []).map((p) => p.port);
      if (port === undefined || !ports.includes(port)) {
        problems.push({
          reason: 'BackendNotFound',
          message:
            port === undefined
              ? `backendRef to Service ${tns}/${name} needs a port`
              : `Service ${tns}/${name} has no port ${port}`,
        });
        continue;
      }
      refs.push({ kind, entry, weight, port });
    } else {
      const spec = gwSpec('GwBackend', entry);
      if (spec) refs.push({ kind, entry, weight, spec });
    }
  }
  return { refs, problems, refusals };
}

/** A route → backend edge as built: its refusals are the coverage table's (read back for the route's). */
export type BuiltEdge = BackendRefInput & { backend: string; refusals?: IrRefusal[] };

/** Why an edge was left out (InvalidBackendTLS, InvalidBackendAuth). */
export interface EdgeProblem {
  reason: string;
  message: string;
}

/** Where an edge points: its IR backend name and the policies that sit on the backend side. */
interface EdgeTarget {
  name: string;
  atts: Attachment[];
  levels: Leveled[];
  own?: { source: string; values: BackendFull | undefined };
  /** MCP targets and AI providers with their own policies (GwBackend only). */
  subs: { name: string; source: string; values: BackendFull | undefined }[];
  aiProviders: string[];
}

/** The IR backend of the edge (added to the sink once) and its backend-side policy levels. */
function edgeTarget(ctx: Ctx, r: ResolvedRef, sink: RouteSink): EdgeTarget {
  const e = r.entry;
  const atts = validAttachments(ctx, e);
  const ns = e.obj.metadata.namespace ?? '';
  if (r.kind === 'Service') {
    const port = r.port;
    const name = serviceBackendName(ns, e.obj.metadata.name, port);
    if (!sink.backends.has(name)) {
      const endpoints = serviceEndpoints(ctx, ns, e.obj.metadata.name, port);
      sink.backends.set(name, translateService(ns, e.obj.metadata.name, port, endpoints));
    }
    const levels = atts
      .filter((a) => a.sectionName === undefined || a.sectionName === String(port))
      .map((attachment) => ({
        attachment,
        level: attachment.sectionName === undefined ? ('Backend' as const) : ('BackendSection' as const),
      }));
    return { name, atts, levels, subs: [], aiProviders: [] };
  }
  const name = gwBackendName(e.key);
  const spec = r.spec;
  const result = memo(ctx, `backend:${e.key}`, () => translateGwBackend(ctx, e.key, spec));
  if (!sink.backends.has(name)) sink.backends.set(name, result.backend);
  const levels = atts
    .filter((a) => a.sectionName === undefined)
    .map((attachment) => ({ attachment, level: 'Backend' as const }));
  const display = displayName('GwBackend', e.key);
  const subs = [
    ...result.targets.map((t) => ({ name: t, source: `${display} target ${t}`, values: result.targetPolicies[t] })),
    ...result.providers.map((p) => ({ name: p, source: `${display} provider ${p}`, values: result.targetPolicies[p] })),
  ];
  return {
    name,
    atts,
    levels,
    own: { source: display, values: spec.policies },
    subs,
    aiProviders: result.providers,
  };
}

/** The IR edge, or why its backend TLS or AI credential cannot be programmed. */
export function backendRef(
  ctx: Ctx,
  gp: GatewayPolicies,
  r: ResolvedRef,
  routeSide: Leveled[],
  sink: RouteSink,
  gateway: string,
  /** A GRPCRoute's edge: HTTP/2 upstream unless a policy says otherwise. */
  grpc = false,
): BuiltEdge | EdgeProblem {
  const target = edgeTarget(ctx, r, sink);
  const out: BuiltEdge = { backend: target.name, weight: r.weight };
  const merged = backendPolicy(gp, routeSide, target.levels, target.own);
  sink.conflicts.push(...merged.conflicts);
  if (Object.keys(merged.fields).length) out.policy = fieldsOf(merged);
  const tls = edgeTls(ctx, r, merged, [...routeSide, ...target.levels], gateway, sink);
  if (tls && 'reason' in tls) return tls;
  if (tls) out.tls = tls;
  const guardrails = mcpGuardrails(ctx, merged);
  if (guardrails) out.mcpGuardrails = guardrails;
  const subMerged = subPolicies(gp, routeSide, target, sink);
  for (const [name, m] of Object.entries(subMerged)) {
    (out.targetPolicies ??= {})[name] = fieldsOf(m);
    reportIdentityMissing(ctx, m, [...routeSide, ...target.levels, ...subLevels(target, name)], gateway, sink);
  }
  const irBackend = sink.backends.get(out.backend);
  if (irBackend?.mcp) {
    const targetTls = mcpTargetTls(ctx, merged, subMerged);
    if (!targetTls.ok) return targetTls.problem;
    if (targetTls.tls) out.targetTls = targetTls.tls;
  }
  const credentials = edgeCredentials(ctx, irBackend, target.aiProviders, merged, subMerged);
  if ('reason' in credentials) return credentials;
  Object.assign(out, credentials);
  const promptGuard = edgePromptGuard(merged, subMerged, promptGuardLookup(ctx));
  if (promptGuard) out.promptGuard = promptGuard;
  refuseTargetGuardrails(out, merged, subMerged);
  const http = httpVersionOf(irBackend, merged, subMerged, grpc || (r.kind === 'Service' && h2cServicePort(r)));
  if (http.version) out.httpVersion = http.version;
  if (http.perTarget) out.targetHttpVersions = http.perTarget;
  const timeout = requestTimeoutOf(irBackend, merged, subMerged);
  if (timeout.ms) out.requestTimeoutMs = timeout.ms;
  if (timeout.perTarget) out.targetRequestTimeoutMs = timeout.perTarget;
  // node:http2 speaks only h2: a list without it would make every connection fail after the handshake.
  const alpn = out.tls?.alpnProtocols ?? [];
  if (http.version === 'HTTP2' && alpn.length > 0 && !alpn.includes('h2'))
    return {
      reason: 'InvalidBackendTLS',
      message:
        `${out.tls?.source ?? ''} backend.tls.alpnProtocols: an HTTP/2 backend needs h2 in the list, got ${alpn.join(', ')}`.trim(),
    };
  // Like TLS: an edge whose tunnel cannot be built is left out, never sent around the proxy it names.
  const connection = edgeConnection(ctx, irBackend, merged, subMerged, (m) => policyBackendResolver(ctx, m.provenance));
  if (!connection.ok) return { reason: 'InvalidBackendTunnel', message: connection.message };
  Object.assign(out, connection.settings);
  const health = edgeHealth(irBackend, merged, subMerged);
  if (health.health) out.health = health.health;
  if (health.targetHealth) out.targetHealth = health.targetHealth;
  const transformation = edgeTransformation(irBackend, merged, subMerged);
  if (transformation.transformation) out.transformation = transformation.transformation;
  const aiProviders = (irBackend?.ai?.groups ?? []).flatMap((g) => g.providers ?? []);
  const refused = [
    ...http.refusals,
    ...connection.refusals,
    ...health.refusals,
    ...transformation.refusals,
    ...promptCachingRefusals(aiProviders, merged, subMerged),
  ];
  // A policy's status names what it sets that this edge does not apply (the GwBackend's own says so itself).
  for (const r of refused) {
    const policy = /^GwPolicy (.+)$/.exec(r.source)?.[1];
    if (policy) sink.piece(objectKey('GwPolicy', policy), { kind: 'policyRefusal', field: r.field, reason: r.reason });
  }
  const refusals = edgeRefusals(irBackend, r, merged, subMerged, refused);
  if (refusals.length) out.refusals = refusals;
  return out;
}

/** Backend kinds whose upstream HTTP version is chosen per edge: the HTTP forwarder's (AgentCore's too) and MCP targets. */
const VERSIONED_KINDS = new Set(['static', 'a2a', 'dynamicForwardProxy', 'aws', 'mcp']);

/**
 * `backend.http.version` of the edge: set on an HTTP or MCP backend's edge, with each MCP target's own (its
 * `policies.http.version` or a sectionName-targeted GwPolicy) in a map beside it; on an AI edge each provider
 * carries its merged one (AiProviderEdge.http_version, backend-ai.ts); refused (on status, not silently left
 * out) on an edge of any other kind.
 */
function httpVersionOf(
  irBackend: BackendInput | undefined,
  merged: EffectivePolicy,
  subMerged: Record<string, EffectivePolicy>,
  /** No policy setting it: HTTP/2 for GRPCRoute edges and `kubernetes.io/h2c` Service ports (GEP-1911). */
  h2ByDefault: boolean,
): { version?: 'HTTP1' | 'HTTP2'; perTarget?: Record<string, 'HTTP1' | 'HTTP2'>; refusals: IrRefusal[] } {
  const refusals: IrRefusal[] = [];
  const versionIn = (m: EffectivePolicy) => m.fields['backend.http']?.version;
  // AI providers apply the edge's and their own (backend-ai.ts providerEdge).
  if (irBackend?.kind === 'ai') return { refusals };
  const kind = irBackend?.kind ?? '';
  let perTarget: Record<string, 'HTTP1' | 'HTTP2'> | undefined;
  if (kind === 'mcp')
    for (const [name, m] of Object.entries(subMerged)) {
      const own = versionIn(m);
      if (own && m.provenance['backend.http']?.source !== merged.provenance['backend.http']?.source)
        (perTarget ??= {})[name] = own === 'HTTP2' ? 'HTTP2' : 'HTTP1';
    }
  const version = versionIn(merged);
  if (!version) {
    const byDefault = VERSIONED_KINDS.has(kind) && kind !== 'mcp' && kind !== 'aws' && h2ByDefault;
    return { ...(byDefault ? { version: 'HTTP2' as const } : {}), ...(perTarget ? { perTarget } : {}), refusals };
  }
  if (!VERSIONED_KINDS.has(kind)) {
    const source = merged.provenance['backend.http']?.source ?? '';
    const path = source.startsWith('GwPolicy ') ? 'spec.backend.http.version' : 'spec.policies.http.version';
    const reason = `the upstream HTTP version is chosen for HTTP, AgentCore, MCP and AI backends, not for ${kind || 'this'} backends`;
    refusals.push({ field: path, source, reason, security: false });
    return { refusals };
  }
  return { version: version === 'HTTP2' ? 'HTTP2' : 'HTTP1', ...(perTarget ? { perTarget } : {}), refusals };
}

/**
 * `backend.http.requestTimeout` of the edge: each try's deadline on an HTTP backend (the forwarder), the bound
 * of each call to a target on an MCP edge, with a target's own setting (its `policies.http` or a
 * sectionName-targeted GwPolicy) in a map beside it; an AI edge's providers carry their own (backend-ai.ts).
 */
function requestTimeoutOf(
  irBackend: BackendInput | undefined,
  merged: EffectivePolicy,
  subMerged: Record<string, EffectivePolicy>,
): { ms?: number; perTarget?: Record<string, number> } {
  if (irBackend?.kind === 'ai') return {};
  const msOf = (m: EffectivePolicy): number => {
    const timeout = m.fields['backend.http']?.requestTimeout;
    return timeout ? (parseDurationMs(timeout) ?? 0) : 0;
  };
  let perTarget: Record<string, number> | undefined;
  if (irBackend?.kind === 'mcp')
    for (const [name, m] of Object.entries(subMerged)) {
      const ms = msOf(m);
      if (ms && m.provenance['backend.http']?.source !== merged.provenance['backend.http']?.source)
        (perTarget ??= {})[name] = ms;
    }
  const ms = msOf(merged);
  return { ...(ms ? { ms } : {}), ...(perTarget ? { perTarget } : {}) };
}

/** Upstream TLS of the edge: a Gw `backend.tls` on it, else the Service's BackendTLSPolicy. */
function edgeTls(
  ctx: Ctx,
  r: ResolvedRef,
  merged: EffectivePolicy,
  leveled: readonly Leveled[],
  gateway: string,
  sink: RouteSink,
): BuiltEdge['tls'] | EdgeProblem {
  reportIdentityMissing(ctx, merged, leveled, gateway, sink);
  const tls = backendTls(ctx, merged);
  if (!tls.ok) return { reason: 'InvalidBackendTLS', message: tls.message };
  // A Gw backend.tls on the edge is the explicit, more specific setting; else the Service's BackendTLSPolicy.
  const std = r.kind === 'Service' ? serviceBackendTls(ctx, r.entry, r.port, gateway, sink.piece) : undefined;
  if (std && !tls.tls && !std.ok) return { reason: 'InvalidBackendTLS', message: std.message };
  if (tls.tls) return tls.tls;
  return std?.ok ? std.tls : undefined;
}

/**
 * The GwPolicy or GwBackend whose `certificateSource: SPIFFE` this Gateway's proxy cannot serve hears so
 * per Gateway (issue 38): its status names the Gateways that leave its edges out, not only those that serve it.
 * A GwPolicy hears it on the targetRef or targetSelector that won the field here (`leveled`, the merge's
 * GwPolicy candidates), so its other targets through the same Gateway are not said to be left out.
 */
function reportIdentityMissing(
  ctx: Ctx,
  merged: EffectivePolicy,
  leveled: readonly Leveled[],
  gateway: string,
  sink: RouteSink,
): void {
  const source = identityLackingSource(ctx, merged);
  const from = /^(GwPolicy|GwBackend) (\S+)/.exec(source ?? '');
  if (!from?.[1] || !from[2]) return;
  if (from[1] === 'GwBackend') {
    sink.piece(objectKey('GwBackend', from[2]), { kind: 'identityMissing', gateway });
    return;
  }
  const level = merged.provenance['backend.tls']?.level;
  const indexes = new Set(
    leveled.flatMap((l) => (l.attachment.source === source && l.level === level ? [l.attachment.targetIndex] : [])),
  );
  for (const targetIndex of indexes)
    sink.piece(objectKey('GwPolicy', from[2]), { kind: 'identityMissing', gateway, targetIndex });
}

/** Each MCP target's own TLS; like the edge's, settings that cannot be resolved leave the edge out. */
function mcpTargetTls(
  ctx: Ctx,
  merged: EffectivePolicy,
  subMerged: Record<string, EffectivePolicy>,
): { ok: true; tls: BuiltEdge['targetTls'] } | { ok: false; problem: EdgeProblem } {
  let out: BuiltEdge['targetTls'];
  for (const [name, m] of Object.entries(subMerged)) {
    if (m.provenance['backend.tls']?.source === merged.provenance['backend.tls']?.source) continue;
    const t = backendTls(ctx, m);
    if (!t.ok) return { ok: false, problem: { reason: 'InvalidBackendTLS', message: t.message } };
    if (t.tls) (out ??= {})[name] = t.tls;
  }
  return { ok: true, tls: out };
}

/** The merged policy of each MCP target / AI provider that has policies of its own (or aimed at it). */
function subPolicies(
  gp: GatewayPolicies,
  routeSide: Leveled[],
  target: EdgeTarget,
  sink: RouteSink,
): Record<string, EffectivePolicy> {
  const out: Record<string, EffectivePolicy> = {};
  for (const s of target.subs) {
    const leveled = subLevels(target, s.name);
    if (leveled.length === 0 && !s.values) continue;
    const m = backendPolicy(gp, routeSide, target.levels, target.own, { leveled, source: s.source, values: s.values });
    sink.conflicts.push(...m.conflicts);
    out[s.name] = m;
  }
  return out;
}

/** The policies aimed at one MCP target or AI provider of the edge (a sectionName-targeted GwPolicy). */
function subLevels(target: EdgeTarget, name: string): Leveled[] {
  return target.atts
    .filter((a) => a.sectionName === name)
    .map((attachment) => ({ attachment, level: 'BackendSection' as const }));
}

/** `backend.auth` of a non-AI edge (and its targets), or the LLM settings of an `ai` edge. */
function edgeCredentials(
  ctx: Ctx,
  irBackend: BackendInput | undefined,
  aiProviders: string[],
  merged: EffectivePolicy,
  subMerged: Record<string, EffectivePolicy>,
): Pick<BackendRefInput, 'credential' | 'targetCredentials' | 'ai'> | EdgeProblem {
  const out: Pick<BackendRefInput, 'credential' | 'targetCredentials' | 'ai'> = {};
  if (irBackend && !irBackend.ai) {
    // Like an AI credential: an edge whose backend.auth cannot be applied is left out, never sent without it.
    const auth = edgeCredential(ctx, irBackend, merged);
    if (!auth.ok) return { reason: 'InvalidBackendAuth', message: auth.message };
    if (auth.credential) out.credential = auth.credential;
    for (const [name, m] of Object.entries(subMerged)) {
      const t = edgeCredential(ctx, irBackend, m, name);
      if (!t.ok) return { reason: 'InvalidBackendAuth', message: t.message };
      if (t.credential) (out.targetCredentials ??= {})[name] = t.credential;
    }
  }
  if (irBackend?.ai) {
    // Like TLS: an edge whose upstream credential cannot be resolved is left out rather than sent without it.
    const ai = backendAi(ctx, aiProviders, merged, subMerged, (m) => policyBackendResolver(ctx, m.provenance));
    if (!ai.ok) return { reason: 'InvalidBackendAuth', message: ai.message };
    if (ai.ai) out.ai = ai.ai;
  }
  return out;
}

/** The refusals of one edge: what policies made effective on it and what the GwBackend itself sets. */
function edgeRefusals(
  irBackend: BackendInput | undefined,
  r: ResolvedRef,
  merged: EffectivePolicy,
  subMerged: Record<string, EffectivePolicy>,
  extra: readonly IrRefusal[],
): IrRefusal[] {
  const out = [...mergedRefusals(merged), ...Object.values(subMerged).flatMap(mergedRefusals), ...extra];
  if (r.kind === 'GwBackend') out.push(...objectRefusals('GwBackend', displayName('GwBackend', r.entry.key), r.spec));
  return uniqueRefusals(out);
}

/** A Service port whose `appProtocol` is `kubernetes.io/h2c` speaks HTTP/2 with prior knowledge. */
function h2cServicePort(r: { entry: StoredObject; port: number }): boolean {
  const p = (serviceSpec(r.entry).ports ?? []).find((x) => x.port === r.port);
  return p?.appProtocol === 'kubernetes.io/h2c';
}
