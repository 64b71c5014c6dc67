// HTTPRoute / GRPCRoute → IR routes (one per rule and listener group): checks the rules, attaches the
// route to listeners (route-parents.ts), builds each rule's IR route (route-rules.ts, with its backend
// edges from route-backends.ts) and turns what the edges could not program into ResolvedRefs=False.
import { markGuardrailProblem } from '../backends/mcp-guardrails.js';
import { markPromptGuardProblems } from '../backends/prompt-guard.js';
import type { ListenerInfo } from '../listeners/listeners.js';
import type { Ctx } from '../objects/context.js';
import { routeSpec, type RouteRule } from '../objects/gateway-api.js';
import type { StoredObject } from '../objects/types.js';
import { routeLevels, type GatewayPolicies } from '../policies/policies.js';
import { validAttachments } from '../policies/policy-targets.js';
import { condition, type ParentStatus } from '../status/conditions.js';
import { resolveBackendRefs } from './route-backends.js';
import { ruleMatches, type RuleMatches } from './route-matches.js';
import { attachToListeners, listenerGroups, ourParents, parentStatuses, type CondArgs } from './route-parents.js';
import { ruleRoute, type RuleProblems } from './route-rules.js';
import type { RouteSink } from './route-sink.js';

export function translateRoute(
  ctx: Ctx,
  gw: StoredObject,
  route: StoredObject,
  listeners: ListenerInfo[],
  gp: GatewayPolicies,
  sink: RouteSink,
): void {
  const spec = routeSpec(route);
  const rules = spec.rules ?? [];
  const checked = checkRules(route, rules);
  const parents = ourParents(gw, route, listeners);
  const status = parentStatuses(ctx, route, checked.partial, sink.piece);
  if (checked.invalid.length > 0) {
    const msg = `the ${route.kind} is invalid: ${checked.invalid.join('; ')}`;
    for (const p of parents) status.emit(p, [false, 'UnsupportedValue', msg], [false, 'UnsupportedValue', msg]);
    return;
  }
  const routeHosts = spec.hostnames ?? [];
  const resolved = rules.map((r) => resolveBackendRefs(ctx, route, r));
  const refProblem = resolved.flatMap((r) => r.problems)[0];
  const resolvedCond: CondArgs = refProblem
    ? [false, refProblem.reason, refProblem.message]
    : [true, 'ResolvedRefs', 'all references resolved'];
  const attached = attachToListeners(ctx, route, parents, routeHosts, resolvedCond, status.emit);
  if (attached.size === 0) return;
  for (const { listener } of attached.values()) listener.status.attachedRoutes++;
  const groups = listenerGroups(gw.key, gp, attached, routeHosts);
  const routeAtt = validAttachments(ctx, route);
  const problems: RuleProblems = { edges: [], guards: [], mcpGuardrails: [], invalidPolicies: new Map() };
  rules.forEach((rule, index) => {
    const { matches, problems: invalid } = checked.matches[index] ?? { matches: [], problems: [] };
    if (invalid.length > 0) return;
    const levels = routeLevels(routeAtt, rule.name);
    const r = resolved[index];
    const rs = { route, rule, index, matches, refs: r?.refs ?? [], levels, refusals: r?.refusals ?? [] };
    for (const g of groups) sink.routes.push(ruleRoute(ctx, gw.key, gp, sink, rs, g, problems));
  });
  markRouteProblems(status.emitted, problems, route.obj.metadata.generation ?? 0, ctx.options.now);
}

/**
 * Gateway API: invalid rules are dropped (PartiallyInvalid); with no valid rule left, or problems with the
 * route object itself, the route is not accepted (`invalid`).
 */
function checkRules(
  route: StoredObject,
  rules: readonly RouteRule[],
): { matches: RuleMatches[]; invalid: string[]; partial: string | undefined } {
  const matches = rules.map((r, i) => ruleMatches(route.kind, r, i));
  const dropped = matches.flatMap((m, i) => (m.problems.length > 0 ? [i] : []));
  const invalid =
    route.problems.length > 0
      ? route.problems.map((p) => `${p.path}: ${p.message}`)
      : rules.length > 0 && dropped.length === rules.length
        ? matches.flatMap((m) => m.problems)
        : [];
  const partial =
    dropped.length === 0 || invalid.length > 0
      ? undefined
      : `Dropped Rule(s) ${dropped.map((i) => rules[i]?.name ?? `rules[${i}]`).join(', ')}: ${dropped.flatMap((i) => matches[i]?.problems ?? []).join('; ')}`;
  return { matches, invalid, partial };
}

function markRouteProblems(emitted: ParentStatus[], problems: RuleProblems, gen: number, now: string): void {
  const edges = problems.edges;
  if (edges.length > 0)
    markEdgeProblem(emitted, edges[0]?.reason ?? '', [...new Set(edges.map((p) => p.message))].join('; '), gen, now);
  markPromptGuardProblems(emitted, problems.guards, gen, now);
  if (problems.mcpGuardrails.length > 0)
    markGuardrailProblem(emitted, [...new Set(problems.mcpGuardrails)].join('; '), gen, now);
  markInvalidPolicies(emitted, problems.invalidPolicies, gen, now);
}

/**
 * Issue 31: an invalid GwPolicy that sets security fields closes the route; its status names the policy and
 * the fields (ResolvedRefs=False, reason InvalidPolicy, or appended to another reason already there).
 */
function markInvalidPolicies(
  parents: ParentStatus[],
  invalid: Map<string, Set<string>>,
  gen: number,
  now: string,
): void {
  if (invalid.size === 0) return;
  const named = [...invalid.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([source, fields]) => `${source} is invalid and sets ${[...fields].sort().join(', ')}`);
  const message = `${named.join('; ')}: the route answers 503 policy_not_enforced until it is fixed (see its status)`;
  for (const p of parents) {
    const i = p.conditions.findIndex((c) => c.type === 'ResolvedRefs');
    const c = p.conditions[i];
    if (!c) continue;
    p.conditions[i] =
      c.status === 'True'
        ? condition('ResolvedRefs', false, 'InvalidPolicy', message, gen, now)
        : { ...c, message: `${c.message}; ${message}` };
  }
}

/** Backend TLS and AI credentials are known only per edge, after the parents' conditions were built: ResolvedRefs turns false. */
function markEdgeProblem(parents: ParentStatus[], reason: string, message: string, gen: number, now: string): void {
  for (const p of parents) {
    const i = p.conditions.findIndex((c) => c.type === 'ResolvedRefs');
    if (i >= 0 && p.conditions[i]?.status === 'True')
      p.conditions[i] = condition('ResolvedRefs', false, reason, message, gen, now);
  }
}
