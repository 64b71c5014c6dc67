// HTTPRoute / GRPCRoute → IR routes (one per rule), with parent attachment, hostname intersection,
// backend references and the effective policy of every rule.
import { backendAi } from '../backends/backend-ai.js';
import { edgeCredential } from '../backends/backend-auth.js';
import { backendTls } from '../backends/backend-tls.js';
import { serviceBackendTls } from '../backends/backend-tls-policy.js';
import { translateGwBackend, translateService, gwBackendName, serviceBackendName } from '../backends/backends.js';
import { condition, type ParentStatus, type StatusPiece } from '../status/conditions.js';
import { memo, read, readAny, type Ctx } from '../objects/context.js';
import { intersectHostnames } from '../listeners/hostnames.js';
import {
  guardrailProblems,
  markGuardrailProblem,
  mcpGuardrails,
  refuseTargetGuardrails,
} from '../backends/mcp-guardrails.js';
import type { BackendInput, BackendRefInput, PolicyFieldsInput, RouteInput } from '../../ir/types.js';
import type { Named } from '../built-ir.js';
import { extAuthRefProblem, policyBackendResolver, type PolicyBackendResolver } from '../policies/ext-auth.js';
import { authRefusals, typedPolicy } from '../policies/ir-policy.js';
import type { PolicySecretReader } from '../policies/policy-secrets.js';
import { typedTraffic } from '../policies/ir-traffic.js';
import { policySecretReader } from '../policies/policy-secrets.js';
import type { ListenerInfo } from '../listeners/listeners.js';
import type { Conflict, FieldOrigin, MergeResult } from '../policies/policy-merge.js';
import {
  edgePromptGuard,
  markPromptGuardProblems,
  promptGuardLookup,
  promptGuardRefProblems,
} from '../backends/prompt-guard.js';
import { scopeRefusals } from '../policies/scope-refusals.js';
import {
  backendPolicy,
  frontendPolicy,
  listenerLevels,
  routeLevels,
  routePolicy,
  type GatewayPolicies,
  type Leveled,
} from '../policies/policies.js';
import { mergedRefusals, objectRefusals, uniqueRefusals, type IrRefusal } from '../../coverage/effective.js';
import { validAttachments } from '../policies/policy-targets.js';
import { routeOrder, ruleMatches } from './route-matches.js';
import { arr, num, rec, recs, selectorMatches, stableStringify, str, type Rec } from '../objects/read.js';
import { referenceAllowed } from '../objects/refs.js';
import { ruleFilters } from './route-filters.js';
import { ruleTimeouts } from './route-timeouts.js';
import { refKind } from '../objects/store.js';
import { GROUP, displayName, nameKey, objectKey, type StoredObject } from '../objects/types.js';

export interface RouteSink {
  routes: Named<RouteInput>[];
  backends: Map<string, BackendInput>;
  piece(objKey: string, p: StatusPiece): void;
  conflicts: Conflict[];
}

/** A parentRef that names this gateway (directly, or one of its ListenerSets) and its candidate listeners. */
interface OurParent {
  index: number;
  ref: Rec;
  listeners: ListenerInfo[];
}

export function translateRoute(
  ctx: Ctx,
  gw: StoredObject,
  route: StoredObject,
  listeners: ListenerInfo[],
  gp: GatewayPolicies,
  sink: RouteSink,
): void {
  const spec = rec(route.obj.spec) ?? {};
  const ns = route.obj.metadata.namespace ?? '';
  const gen = route.obj.metadata.generation ?? 0;
  const now = ctx.options.now;
  const parents = ourParents(gw, route, listeners);
  const routeKey = objectKey(route.kind, route.key);
  const rules = recs(spec.rules);
  const ruleMatchList = rules.map((r, i) => ruleMatches(route.kind, r, i));
  const dropped = ruleMatchList.flatMap((m, i) => (m.problems.length > 0 ? [i] : []));
  // Gateway API: invalid rules are dropped (PartiallyInvalid); with no valid rule left the route is not accepted.
  const invalid =
    route.problems.length > 0
      ? route.problems.map((p) => `${p.path}: ${p.message}`)
      : rules.length > 0 && dropped.length === rules.length
        ? ruleMatchList.flatMap((m) => m.problems)
        : [];
  const partial =
    dropped.length === 0 || invalid.length > 0
      ? undefined
      : `Dropped Rule(s) ${dropped.map((i) => str(rules[i]?.name) ?? `rules[${i}]`).join(', ')}: ${dropped.flatMap((i) => ruleMatchList[i]?.problems ?? []).join('; ')}`;
  const emitted: ParentStatus[] = [];
  const parentPiece = (p: OurParent, accepted: [boolean, string, string], resolved: [boolean, string, string]) => {
    const parent: ParentStatus = {
      parentRef: parentRefOut(p.ref, ns),
      controllerName: ctx.options.controllerName,
      conditions: [
        condition('Accepted', ...accepted, gen, now),
        condition('ResolvedRefs', ...resolved, gen, now),
        ...(partial ? [condition('PartiallyInvalid', true, 'UnsupportedValue', partial, gen, now)] : []),
      ],
    };
    emitted.push(parent);
    sink.piece(routeKey, { kind: 'parent', parent });
  };
  if (invalid.length > 0) {
    const msg = `the ${route.kind} is invalid: ${invalid.join('; ')}`;
    for (const p of parents) parentPiece(p, [false, 'UnsupportedValue', msg], [false, 'UnsupportedValue', msg]);
    return;
  }
  const routeHosts = arr(spec.hostnames).filter((h): h is string => typeof h === 'string');
  const resolved = rules.map((r) => resolveBackendRefs(ctx, route, r));
  const refProblem = resolved.flatMap((r) => r.problems)[0];
  const resolvedCond: [boolean, string, string] = refProblem
    ? [false, refProblem.reason, refProblem.message]
    : [true, 'ResolvedRefs', 'all references resolved'];
  const attached = new Map<string, { listener: ListenerInfo; hosts: string[] }>();
  for (const p of parents) {
    if (p.listeners.length === 0) {
      parentPiece(
        p,
        [false, 'NoMatchingParent', 'no listener matches the parentRef sectionName or port'],
        resolvedCond,
      );
      continue;
    }
    const allowed = p.listeners.filter((l) => l.programmed && routeAllowed(ctx, l, route));
    if (allowed.length === 0) {
      parentPiece(
        p,
        [
          false,
          'NotAllowedByListeners',
          'no matching listener allows this route (allowedRoutes, protocol or listener not programmed)',
        ],
        resolvedCond,
      );
      continue;
    }
    let any = false;
    for (const l of allowed) {
      const hosts = intersectHostnames(l.hostname, routeHosts);
      if (!hosts) continue;
      any = true;
      const prev = attached.get(l.irName);
      attached.set(l.irName, { listener: l, hosts: [...(prev?.hosts ?? []), ...hosts] });
    }
    if (!any)
      parentPiece(
        p,
        [false, 'NoMatchingListenerHostname', 'no listener host name intersects the route hostnames'],
        resolvedCond,
      );
    else parentPiece(p, [true, 'Accepted', 'route is attached'], resolvedCond);
  }
  if (attached.size === 0) return;
  for (const { listener } of attached.values()) listener.status.attachedRoutes++;
  const routeAtt = validAttachments(ctx, route);
  const groups = groupByListenerPolicy(
    gp,
    [...attached.values()].map((a) => a.listener),
  ).map((group) => ({
    group,
    listenerLevels: listenerLevels(gp, group[0] as ListenerInfo),
    listeners: group.map((l) => l.irName).sort(),
    hosts: routeHosts.length ? [...new Set(group.flatMap((l) => attached.get(l.irName)?.hosts ?? []))].sort() : [],
    suffix: `@${(group[0] as ListenerInfo).irName.slice(gw.key.length + 1)}`,
  }));
  const edgeProblems: EdgeProblem[] = [];
  const guardProblems: { reason: string; message: string }[] = [];
  const mcpGuardrailProblems: string[] = [];
  rules.forEach((rule, i) => {
    const ruleName = str(rule.name);
    const base = `${route.kind}/${route.key}/${ruleName ?? i}`;
    const { matches, problems } = ruleMatchList[i] ?? { matches: [], problems: [] };
    if (problems.length > 0) return;
    const ruleLevels = routeLevels(routeAtt, ruleName);
    const timeouts = route.kind === 'HTTPRoute' ? ruleTimeouts(rule) : undefined;
    const filters = ruleFilters(route.kind, rule);
    for (const g of groups) {
      const leveled = [...g.listenerLevels, ...ruleLevels];
      const eff = routePolicy(gp, leveled);
      sink.conflicts.push(...eff.conflicts);
      const provenance: Record<string, string> = {};
      for (const k in eff.provenance) provenance[k] = (eff.provenance[k] as FieldOrigin).source;
      const refs = (resolved[i]?.refs ?? []).map((r) => backendRef(ctx, gp, r, leveled, sink, gw.key));
      const edges = refs.filter((r): r is BuiltEdge => !('reason' in r));
      edgeProblems.push(...refs.filter((r): r is EdgeProblem => 'reason' in r));
      guardProblems.push(...promptGuardRefProblems(edges));
      mcpGuardrailProblems.push(...edges.flatMap((r) => guardrailProblems(r)));
      const resolveBackend = policyBackendResolver(ctx, eff.provenance);
      const extAuthProblem = extAuthRefProblem(eff.fields, resolveBackend);
      if (extAuthProblem) edgeProblems.push(extAuthProblem);
      const irRoute: Named<RouteInput> & { refusals?: IrRefusal[] } = {
        name: groups.length > 1 ? `${base}${g.suffix}` : base,
        listeners: g.listeners,
        hostnames: g.hosts,
        routeMatches: matches,
        order: routeOrder(route, i),
        // An edge whose TLS or credential cannot be set up is left out: sending plaintext (or no key) would be worse than no traffic.
        backends: edges,
        policy: typedPolicy(eff.fields, policySecretReader(ctx, eff.provenance), resolveBackend),
        ...trafficOf(eff, edges, policySecretReader(ctx, eff.provenance), resolveBackend),
        provenance,
        effective: fieldsOf(eff),
        ...(timeouts ? { timeouts } : {}),
        ...(filters ? { filters } : {}),
      };
      // The typed-traffic path's auth refusals and the coverage table's, once each.
      const refusals = uniqueRefusals([
        ...(irRoute.refusals ?? []),
        ...routeRefusals(gp, g.group[0], eff, edges),
        ...scopeRefusals(eff, edges, sink.backends),
      ]);
      if (refusals.length) irRoute.refusals = refusals;
      for (const r of scopeRefusals(eff, edges, sink.backends)) {
        const policy = /^GwPolicy (.+)$/.exec(r.source)?.[1];
        if (policy)
          sink.piece(objectKey('GwPolicy', policy), { kind: 'policyRefusal', field: r.field, reason: r.reason });
      }
      sink.routes.push(irRoute);
    }
  });
  if (edgeProblems.length > 0)
    markEdgeProblem(
      emitted,
      edgeProblems[0]?.reason ?? '',
      [...new Set(edgeProblems.map((p) => p.message))].join('; '),
      gen,
      now,
    );
  markPromptGuardProblems(emitted, guardProblems, gen, now);
  if (mcpGuardrailProblems.length > 0)
    markGuardrailProblem(emitted, [...new Set(mcpGuardrailProblems)].join('; '), gen, now);
}

/** The route's typed traffic policy and its security refusals (issue 14: nothing accepted is skipped). */
function trafficOf(
  eff: MergeResult,
  edges: BackendRefInput[],
  readSecret: PolicySecretReader,
  resolveBackend: PolicyBackendResolver,
): Pick<RouteInput, 'traffic'> & { refusals?: IrRefusal[] } {
  const traffic = typedTraffic(eff.fields);
  const edgePolicies = edges.flatMap((e) => [
    ...(e.policy ? [e.policy] : []),
    ...Object.values(e.targetPolicies ?? {}),
  ]);
  const refusals = authRefusals(
    eff.fields,
    (f) => eff.provenance[f]?.source ?? '',
    readSecret,
    resolveBackend,
    edgePolicies,
  );
  return { ...(traffic ? { traffic } : {}), ...(refusals.length > 0 ? { refusals } : {}) };
}

/**
 * Everything refused that reaches a route: its traffic and backend settings, its listener's frontend
 * settings and every edge's refusals, so one look at the route tells the proxy whether to answer 503.
 */
function routeRefusals(
  gp: GatewayPolicies,
  listener: ListenerInfo | undefined,
  eff: MergeResult,
  edges: readonly BuiltEdge[],
): IrRefusal[] {
  const frontend = listener ? mergedRefusals(frontendPolicy(gp, listener)) : [];
  return uniqueRefusals([...mergedRefusals(eff), ...frontend, ...edges.flatMap((e) => e.refusals ?? [])]);
}

/** The refusals of one edge: what policies made effective on it and what the GwBackend itself sets. */
function edgeRefusals(
  irBackend: BackendInput | undefined,
  e: StoredObject,
  merged: MergeResult,
  subMerged: Record<string, MergeResult>,
): IrRefusal[] {
  const out = [...mergedRefusals(merged), ...Object.values(subMerged).flatMap(mergedRefusals)];
  if (e.kind === 'GwBackend') out.push(...objectRefusals('GwBackend', displayName('GwBackend', e.key), e.obj.spec));
  const tls = merged.provenance['backend.tls'];
  // MCP targets are reached without the edge's TLS settings: refuse rather than connect without them.
  if (irBackend?.mcp && tls?.source.startsWith('GwPolicy ')) {
    out.push({
      field: 'spec.backend.tls',
      source: tls.source,
      reason: 'TLS to MCP targets is not supported by this proxy yet',
      security: true,
    });
  }
  return uniqueRefusals(out);
}

/** A route → backend edge as built: its refusals are the coverage table's (read back for the route's). */
type BuiltEdge = BackendRefInput & { backend: string; refusals?: IrRefusal[] };

/** Why an edge was left out (InvalidBackendTLS, InvalidBackendAuth). */
interface EdgeProblem {
  reason: string;
  message: string;
}

/** Backend TLS and AI credentials are known only per edge, after the parents' conditions were built: ResolvedRefs turns false. */
function markEdgeProblem(parents: ParentStatus[], reason: string, message: string, gen: number, now: string): void {
  for (const p of parents) {
    const i = p.conditions.findIndex((c) => c.type === 'ResolvedRefs');
    if (i >= 0 && p.conditions[i]?.status === 'True')
      p.conditions[i] = condition('ResolvedRefs', false, reason, message, gen, now);
  }
}

// Policy values are objects inside stored specs, shared by every rule they reach; their canonical text
// is a pure function of the object, so it is cached by identity (objects are never mutated in place).
const canonical = new WeakMap<object, string>();

function canonicalText(v: unknown): string {
  if (typeof v !== 'object' || v === null) return stableStringify(v);
  let t = canonical.get(v);
  if (t === undefined) canonical.set(v, (t = stableStringify(v)));
  return t;
}

export function fieldsOf(m: MergeResult): PolicyFieldsInput {
  const fields: Record<string, string> = {};
  for (const k of Object.keys(m.fields)) fields[k] = canonicalText(m.fields[k]);
  return { fields, provenance: m.provenance };
}

function ourParents(gw: StoredObject, route: StoredObject, listeners: ListenerInfo[]): OurParent[] {
  const ns = route.obj.metadata.namespace ?? '';
  const out: OurParent[] = [];
  recs(rec(route.obj.spec)?.parentRefs).forEach((ref, index) => {
    const kind = refKind(str(ref.group), str(ref.kind), 'Gateway');
    const key = nameKey(str(ref.namespace) ?? ns, str(ref.name) ?? '');
    const owned = listeners.filter((l) => l.owner.kind === kind && l.owner.key === key);
    const isOurs = (kind === 'Gateway' && key === gw.key) || owned.length > 0;
    if (!isOurs) return;
    const section = str(ref.sectionName),
      port = num(ref.port);
    out.push({
      index,
      ref,
      listeners: owned.filter(
        (l) => (section === undefined || l.name === section) && (port === undefined || l.port === port),
      ),
    });
  });
  return out;
}

function parentRefOut(ref: Rec, ns: string): Record<string, unknown> {
  return {
    group: str(ref.group) ?? GROUP.gateway,
    kind: str(ref.kind) ?? 'Gateway',
    namespace: str(ref.namespace) ?? ns,
    name: str(ref.name) ?? '',
    ...(ref.sectionName !== undefined ? { sectionName: ref.sectionName } : {}),
    ...(ref.port !== undefined ? { port: ref.port } : {}),
  };
}

function routeAllowed(ctx: Ctx, l: ListenerInfo, route: StoredObject): boolean {
  if (!l.status.supportedKinds.some((k) => k.kind === route.kind)) return false;
  const ns = rec(l.allowedRoutes?.namespaces) ?? {};
  const from = str(ns.from) ?? 'Same';
  const routeNs = route.obj.metadata.namespace ?? '';
  if (from === 'All') return true;
  if (from === 'Same') return routeNs === (l.owner.obj.metadata.namespace ?? '');
  if (from === 'Selector')
    return selectorMatches(rec(ns.selector), read(ctx, 'Namespace', routeNs)?.obj.metadata.labels);
  return false;
}

/** Listeners with the same listener-level policies share one IR route; others get their own. */
function groupByListenerPolicy(gp: GatewayPolicies, ls: ListenerInfo[]): ListenerInfo[][] {
  const groups = new Map<string, ListenerInfo[]>();
  for (const l of [...ls].sort((a, b) => (a.irName < b.irName ? -1 : 1))) {
    const sig = listenerLevels(gp, l)
      .filter((x) => {
        const spec = rec(x.attachment.policy.obj.spec) ?? {};
        return spec.traffic !== undefined || spec.backend !== undefined;
      })
      .map((x) => `${x.attachment.policy.key}|${x.level}`)
      .sort()
      .join(',');
    const g = groups.get(sig);
    if (g) g.push(l);
    else groups.set(sig, [l]);
  }
  return [...groups.values()];
}

interface ResolvedRef {
  entry: StoredObject;
  port?: number;
  weight: number;
}

function resolveBackendRefs(
  ctx: Ctx,
  route: StoredObject,
  rule: Rec,
): { refs: ResolvedRef[]; problems: { reason: string; message: string }[] } {
  const ns = route.obj.metadata.namespace ?? '';
  const refs: ResolvedRef[] = [];
  const problems: { reason: string; message: string }[] = [];
  for (const r of recs(rule.backendRefs)) {
    const group = str(r.group) ?? '',
      kindName = str(r.kind) ?? 'Service',
      name = str(r.name) ?? '';
    const tns = str(r.namespace) ?? ns;
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
      problems.push({
        reason: 'BackendNotFound',
        message: `${kind} ${tns}/${name} ${entry ? 'is invalid' : 'does not exist'}`,
      });
      continue;
    }
    const port = num(r.port);
    if (kind === 'Service') {
      const ports = recs(rec(entry.obj.spec)?.ports).map((p) => num(p.port));
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
    }
    refs.push({ entry, weight: num(r.weight) ?? 1, ...(kind === 'Service' ? { port } : {}) });
  }
  return { refs, problems };
}

/** The IR edge, or why its backend TLS or AI credential cannot be programmed. */
function backendRef(
  ctx: Ctx,
  gp: GatewayPolicies,
  r: ResolvedRef,
  routeSide: Leveled[],
  sink: RouteSink,
  gateway: string,
): BuiltEdge | EdgeProblem {
  const e = r.entry;
  const atts = validAttachments(ctx, e);
  const ns = e.obj.metadata.namespace ?? '';
  const out: BuiltEdge = { backend: '', weight: r.weight };
  let backendSide: Leveled[];
  let own: { source: string; values: Rec | undefined } | undefined;
  const subs: { name: string; source: string; values: Rec | undefined }[] = [];
  let aiProviders: string[] = [];
  if (e.kind === 'Service') {
    const port = r.port ?? 0;
    out.backend = serviceBackendName(ns, e.obj.metadata.name, port);
    if (!sink.backends.has(out.backend))
      sink.backends.set(out.backend, translateService(ns, e.obj.metadata.name, port));
    backendSide = atts
      .filter((a) => a.sectionName === undefined || a.sectionName === String(port))
      .map((attachment) => ({
        attachment,
        level: attachment.sectionName === undefined ? ('Backend' as const) : ('BackendSection' as const),
      }));
  } else {
    out.backend = gwBackendName(e.key);
    const spec = rec(e.obj.spec) ?? {};
    const result = memo(ctx, `backend:${e.key}`, () => translateGwBackend(ctx, e.key, spec));
    if (!sink.backends.has(out.backend)) sink.backends.set(out.backend, result.backend);
    backendSide = atts
      .filter((a) => a.sectionName === undefined)
      .map((attachment) => ({ attachment, level: 'Backend' as const }));
    own = { source: displayName('GwBackend', e.key), values: rec(spec.policies) };
    for (const t of result.targets)
      subs.push({
        name: t,
        source: `${displayName('GwBackend', e.key)} target ${t}`,
        values: result.targetPolicies[t],
      });
    for (const p of result.providers)
      subs.push({
        name: p,
        source: `${displayName('GwBackend', e.key)} provider ${p}`,
        values: result.targetPolicies[p],
      });
    aiProviders = result.providers;
  }
  const merged = backendPolicy(gp, routeSide, backendSide, own);
  sink.conflicts.push(...merged.conflicts);
  if (Object.keys(merged.fields).length) out.policy = fieldsOf(merged);
  const tls = backendTls(ctx, merged);
  if (!tls.ok) return { reason: 'InvalidBackendTLS', message: tls.message };
  if (tls.tls) out.tls = tls.tls;
  // A Gw backend.tls on the edge is the explicit, more specific setting; else the Service's BackendTLSPolicy.
  const std = e.kind === 'Service' ? serviceBackendTls(ctx, e, r.port ?? 0, gateway, sink.piece) : undefined;
  if (std && !tls.tls && !std.ok) return { reason: 'InvalidBackendTLS', message: std.message };
  if (std?.ok && std.tls && !tls.tls) out.tls = std.tls;
  const guardrails = mcpGuardrails(ctx, merged);
  if (guardrails) out.mcpGuardrails = guardrails;
  const subMerged: Record<string, MergeResult> = {};
  for (const s of subs) {
    const leveled = atts
      .filter((a) => a.sectionName === s.name)
      .map((attachment) => ({ attachment, level: 'BackendSection' as const }));
    if (leveled.length === 0 && !s.values) continue;
    const m = backendPolicy(gp, routeSide, backendSide, own, { leveled, source: s.source, values: s.values });
    sink.conflicts.push(...m.conflicts);
    (out.targetPolicies ??= {})[s.name] = fieldsOf(m);
    subMerged[s.name] = m;
  }
  const irBackend = sink.backends.get(out.backend);
  const aiBackend = irBackend?.ai;
  if (irBackend && !aiBackend) {
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
  if (aiBackend) {
    // Like TLS: an edge whose upstream credential cannot be resolved is left out rather than sent without it.
    const ai = backendAi(ctx, aiProviders, merged, subMerged);
    if (!ai.ok) return { reason: 'InvalidBackendAuth', message: ai.message };
    if (ai.ai) out.ai = ai.ai;
  }
  const promptGuard = edgePromptGuard(merged, subMerged, promptGuardLookup(ctx));
  if (promptGuard) out.promptGuard = promptGuard;
  refuseTargetGuardrails(out, merged, subMerged);
  const refusals = edgeRefusals(irBackend, e, merged, subMerged);
  if (refusals.length) out.refusals = refusals;
  return out;
}
