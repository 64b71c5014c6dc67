// One HTTPRoute / GRPCRoute rule on one group of listeners → one IR route: its effective policy (typed and
// as provenance), its backend edges, and every refusal that reaches it.
import type { RouteInput } from '../../ir/types.js';
import { mergedRefusals, uniqueRefusals, type IrRefusal } from '../../coverage/effective.js';
import type { Named } from '../built-ir.js';
import { guardrailProblems } from '../backends/mcp-guardrails.js';
import { promptGuardRefProblems } from '../backends/prompt-guard.js';
import type { ListenerInfo } from '../listeners/listeners.js';
import type { Ctx } from '../objects/context.js';
import type { RouteRule } from '../objects/gateway-api.js';
import { objectKey, type StoredObject } from '../objects/types.js';
import { backendMcpSecurity, mcpSecretReader, type BackendMcpSecurity } from '../policies/backend-mcp-auth.js';
import { closedFieldName, isInvalidObjectRefusal } from '../policies/invalid-objects.js';
import { scopeRefusals } from '../policies/scope-refusals.js';
import {
  backendExtAuth,
  extAuthRefProblem,
  policyBackendResolver,
  type PolicyBackendResolver,
} from '../policies/ext-auth.js';
import { authRefusals, typedPolicy } from '../policies/ir-policy.js';
import { jwksBackendResolver, jwksRefProblem, type JwksBackendResolver } from '../policies/jwks-backend.js';
import { typedTraffic } from '../policies/ir-traffic.js';
import { frontendPolicy, routePolicy, type GatewayPolicies, type Leveled } from '../policies/policies.js';
import { fieldsOf } from '../policies/policy-fields.js';
import type { EffectivePolicy } from '../policies/policy-merge.js';
import { policySecretReader, type PolicySecretReader } from '../policies/policy-secrets.js';
import { backendRef, type BuiltEdge, type EdgeProblem, type ResolvedRef } from './route-backends.js';
import type { ListenerGroup } from './route-parents.js';
import { ruleFilters } from './route-filters.js';
import { routeOrder } from './route-matches.js';
import { ruleTimeouts } from './route-timeouts.js';
import type { RouteSink } from './route-sink.js';

/** One valid rule of the route, with its resolved backendRefs and route-side policy levels. */
export interface RuleSource {
  route: StoredObject;
  rule: RouteRule;
  index: number;
  matches: NonNullable<RouteInput['routeMatches']>;
  refs: ResolvedRef[];
  levels: Leveled[];
  /** Security refusals of invalid GwBackends the rule names (issue 31). */
  refusals: IrRefusal[];
}

/** What the rules found that turns the route's ResolvedRefs false. */
export interface RuleProblems {
  edges: EdgeProblem[];
  guards: { reason: string; message: string }[];
  mcpGuardrails: string[];
  /** Invalid GwPolicy → the security fields of it that close this route (issue 31). */
  invalidPolicies: Map<string, Set<string>>;
}

export function ruleRoute(
  ctx: Ctx,
  gateway: string,
  gp: GatewayPolicies,
  sink: RouteSink,
  rs: RuleSource,
  g: ListenerGroup,
  problems: RuleProblems,
): Named<RouteInput> {
  const leveled = [...g.listenerLevels, ...rs.levels];
  const eff = routePolicy(gp, leveled);
  sink.conflicts.push(...eff.conflicts);
  const provenance: Record<string, string> = {};
  for (const k in eff.provenance) provenance[k] = eff.provenance[k]?.source ?? '';
  const before = problems.edges.length;
  const edges = ruleEdges(ctx, gateway, gp, sink, rs, leveled, problems);
  const unserved = problems.edges.slice(before).map(({ reason, message }) => ({ reason, message }));
  const resolveBackend = policyBackendResolver(ctx, eff.provenance);
  const extAuthProblem = extAuthRefProblem(eff.fields, resolveBackend);
  if (extAuthProblem) problems.edges.push(extAuthProblem);
  const readSecret = policySecretReader(ctx, eff.provenance);
  const backendMcp = backendMcpSecurity(
    edges,
    (source) =>
      jwksBackendResolver(ctx, { 'backend.mcp': { source, level: 'BackendOwn', overridden: [] } }, 'backend.mcp'),
    (source) => mcpSecretReader(ctx, source),
  );
  const backendExt = backendExtAuth(edges, ctx, (name) =>
    sink.backends.get(name)?.ai?.groups?.flatMap((g) => (g.providers ?? []).map((p) => p.name ?? '')),
  );
  const backendExtRefusals = backendExt.refusal ? [backendExt.refusal] : [];
  const jwksBackend = jwksBackendResolver(ctx, eff.provenance);
  const jwksProblem = jwksRefProblem(eff.fields, jwksBackend);
  if (jwksProblem) problems.edges.push(jwksProblem);
  const traffic = trafficOf(eff, readSecret, resolveBackend, backendMcp, jwksBackend);
  const timeouts = rs.route.kind === 'HTTPRoute' ? ruleTimeouts(rs.rule) : undefined;
  const filters = ruleFilters(rs.rule);
  const base = `${rs.route.kind}/${rs.route.key}/${rs.rule.name ?? rs.index}`;
  const irRoute: Named<RouteInput> & { refusals?: IrRefusal[] } = {
    name: `${base}${g.suffix}`,
    listeners: g.listeners,
    hostnames: g.hosts,
    routeMatches: rs.matches,
    order: routeOrder(rs.route, rs.index),
    // An edge whose TLS or credential cannot be set up is left out: sending plaintext (or no key) would be worse than no traffic.
    backends: edges,
    policy: {
      ...typedPolicy(eff.fields, readSecret, resolveBackend, backendMcp, jwksBackend),
      ...(backendExt.typed ? { backendExtAuthorization: backendExt.typed } : {}),
    },
    ...(traffic.traffic ? { traffic: traffic.traffic } : {}),
    provenance,
    effective: fieldsOf(eff),
    ...(timeouts ? { timeouts } : {}),
    ...(filters ? { filters } : {}),
    ...(unserved.length ? { unservedBackends: unserved } : {}),
  };
  // The typed-traffic path's auth refusals, the coverage table's and the route-kind ones, once each.
  const scoped = scopeRefusals(eff, edges, sink.backends);
  const refusals = uniqueRefusals([
    ...traffic.refusals,
    ...backendExtRefusals,
    ...routeRefusals(gp, g.group[0], eff, edges),
    ...scoped,
    ...rs.refusals,
  ]);
  if (refusals.length) irRoute.refusals = refusals;
  for (const r of refusals) {
    if (!isInvalidObjectRefusal(r) || !r.source.startsWith('GwPolicy ')) continue;
    const fields = problems.invalidPolicies.get(r.source) ?? new Set();
    problems.invalidPolicies.set(r.source, fields.add(closedFieldName(r)));
  }
  for (const r of [...scoped, ...backendMcp.refusals, ...backendExtRefusals]) {
    const policy = /^GwPolicy (.+)$/.exec(r.source)?.[1];
    if (policy) sink.piece(objectKey('GwPolicy', policy), { kind: 'policyRefusal', field: r.field, reason: r.reason });
  }
  return irRoute;
}

/** The rule's edges that can be programmed; the others become problems. */
function ruleEdges(
  ctx: Ctx,
  gateway: string,
  gp: GatewayPolicies,
  sink: RouteSink,
  rs: RuleSource,
  leveled: Leveled[],
  problems: RuleProblems,
): BuiltEdge[] {
  const refs = rs.refs.map((r) => backendRef(ctx, gp, r, leveled, sink, gateway, rs.route.kind === 'GRPCRoute'));
  const edges = refs.filter((r): r is BuiltEdge => !('reason' in r));
  problems.edges.push(...refs.filter((r): r is EdgeProblem => 'reason' in r));
  problems.guards.push(...promptGuardRefProblems(edges));
  problems.mcpGuardrails.push(...edges.flatMap((r) => guardrailProblems(r)));
  return edges;
}

/** The route's typed traffic policy and its security refusals (issue 14: nothing accepted is skipped). */
function trafficOf(
  eff: EffectivePolicy,
  readSecret: PolicySecretReader,
  resolveBackend: PolicyBackendResolver,
  backendMcp: BackendMcpSecurity,
  jwksBackend: JwksBackendResolver,
): Pick<RouteInput, 'traffic'> & { refusals: IrRefusal[] } {
  const traffic = typedTraffic(eff.fields);
  const refusals = authRefusals(
    eff.fields,
    (f) => eff.provenance[f]?.source ?? '',
    readSecret,
    resolveBackend,
    backendMcp,
    jwksBackend,
  );
  return { ...(traffic ? { traffic } : {}), refusals };
}

/**
 * Everything refused that reaches a route: its traffic and backend settings, its listener's frontend
 * settings and every edge's refusals, so one look at the route tells the proxy whether to answer 503.
 */
function routeRefusals(
  gp: GatewayPolicies,
  listener: ListenerInfo | undefined,
  eff: EffectivePolicy,
  edges: readonly BuiltEdge[],
): IrRefusal[] {
  const frontend = listener ? mergedRefusals(frontendPolicy(gp, listener)) : [];
  return uniqueRefusals([...mergedRefusals(eff), ...frontend, ...edges.flatMap((e) => e.refusals ?? [])]);
}
