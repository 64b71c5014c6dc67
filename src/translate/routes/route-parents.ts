// Which listeners of this Gateway an HTTPRoute / GRPCRoute attaches to, through which parentRefs, and the
// per-parent status (Accepted, ResolvedRefs, PartiallyInvalid) that says so.
import type { ListenerInfo } from '../listeners/listeners.js';
import { intersectHostnames } from '../listeners/hostnames.js';
import { read, type Ctx } from '../objects/context.js';
import { allowedRoutes, routeParents, type ParentReference } from '../objects/gateway-api.js';
import { selectorMatches } from '../objects/read.js';
import { refKind } from '../objects/store.js';
import { GROUP, nameKey, objectKey, type StoredObject } from '../objects/types.js';
import { listenerLevels, type GatewayPolicies, type Leveled } from '../policies/policies.js';
import { condition, type ParentStatus, type StatusPiece } from '../status/conditions.js';

/** An Accepted or ResolvedRefs condition: status, reason, message. */
export type CondArgs = [boolean, string, string];

/** A parentRef that names this gateway (directly, or one of its ListenerSets) and its candidate listeners. */
export interface OurParent {
  index: number;
  ref: ParentReference;
  listeners: ListenerInfo[];
}

export function ourParents(gw: StoredObject, route: StoredObject, listeners: ListenerInfo[]): OurParent[] {
  const ns = route.obj.metadata.namespace ?? '';
  const out: OurParent[] = [];
  routeParents(route).forEach((ref, index) => {
    const kind = refKind(ref.group, ref.kind, 'Gateway');
    const key = nameKey(ref.namespace ?? ns, ref.name ?? '');
    const owned = listeners.filter((l) => l.owner.kind === kind && l.owner.key === key);
    const isOurs = (kind === 'Gateway' && key === gw.key) || owned.length > 0;
    if (!isOurs) return;
    const section = ref.sectionName,
      port = ref.port;
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

/** The parentRef as status echoes it: defaults filled in, sectionName and port as written. */
function parentRefOut(ref: ParentReference, ns: string): Record<string, unknown> {
  const { sectionName, port } = ref.written;
  return {
    group: ref.group ?? GROUP.gateway,
    kind: ref.kind ?? 'Gateway',
    namespace: ref.namespace ?? ns,
    name: ref.name ?? '',
    ...(sectionName !== undefined ? { sectionName } : {}),
    ...(port !== undefined ? { port } : {}),
  };
}

function routeAllowed(ctx: Ctx, l: ListenerInfo, route: StoredObject): boolean {
  if (!l.status.supportedKinds.some((k) => k.kind === route.kind)) return false;
  const ns = allowedRoutes(l.allowedRoutes).namespaces ?? {};
  const from = ns.from ?? 'Same';
  const routeNs = route.obj.metadata.namespace ?? '';
  if (from === 'All') return true;
  if (from === 'Same') return routeNs === (l.owner.obj.metadata.namespace ?? '');
  if (from === 'Selector') return selectorMatches(ns.selector, read(ctx, 'Namespace', routeNs)?.obj.metadata.labels);
  return false;
}

/** Emits each parent's status piece and keeps them, so later edge problems can amend ResolvedRefs. */
export function parentStatuses(
  ctx: Ctx,
  route: StoredObject,
  partial: string | undefined,
  piece: (objKey: string, p: StatusPiece) => void,
): { emitted: ParentStatus[]; emit(p: OurParent, accepted: CondArgs, resolved: CondArgs): void } {
  const ns = route.obj.metadata.namespace ?? '';
  const gen = route.obj.metadata.generation ?? 0;
  const now = ctx.options.now;
  const routeKey = objectKey(route.kind, route.key);
  const emitted: ParentStatus[] = [];
  return {
    emitted,
    emit(p, accepted, resolved) {
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
      piece(routeKey, { kind: 'parent', parent });
    },
  };
}

/** Listener IR name → the listener and the host names the route serves on it. */
export type Attached = Map<string, { listener: ListenerInfo; hosts: string[] }>;

/** Attaches the route to the listeners each parentRef allows, emitting every parent's status. */
export function attachToListeners(
  ctx: Ctx,
  route: StoredObject,
  parents: OurParent[],
  routeHosts: readonly string[],
  resolved: CondArgs,
  emit: (p: OurParent, accepted: CondArgs, resolved: CondArgs) => void,
): Attached {
  const attached: Attached = new Map();
  for (const p of parents) {
    if (p.listeners.length === 0) {
      emit(p, [false, 'NoMatchingParent', 'no listener matches the parentRef sectionName or port'], resolved);
      continue;
    }
    const allowed = p.listeners.filter((l) => l.programmed && routeAllowed(ctx, l, route));
    if (allowed.length === 0) {
      const why = 'no matching listener allows this route (allowedRoutes, protocol or listener not programmed)';
      emit(p, [false, 'NotAllowedByListeners', why], resolved);
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
      emit(p, [false, 'NoMatchingListenerHostname', 'no listener host name intersects the route hostnames'], resolved);
    else emit(p, [true, 'Accepted', 'route is attached'], resolved);
  }
  return attached;
}

/** Listeners that share one IR route: same listener-level policies. `suffix` tells the routes apart. */
export interface ListenerGroup {
  group: ListenerInfo[];
  listenerLevels: Leveled[];
  listeners: string[];
  hosts: string[];
  /** `@listener` when the route is split over several groups, else empty. */
  suffix: string;
}

export function listenerGroups(
  gatewayKey: string,
  gp: GatewayPolicies,
  attached: Attached,
  routeHosts: readonly string[],
): ListenerGroup[] {
  const groups = groupByListenerPolicy(
    gp,
    [...attached.values()].map((a) => a.listener),
  );
  return groups.map((group) => ({
    group,
    listenerLevels: listenerLevels(gp, group[0] as ListenerInfo),
    listeners: group.map((l) => l.irName).sort(),
    hosts: routeHosts.length ? [...new Set(group.flatMap((l) => attached.get(l.irName)?.hosts ?? []))].sort() : [],
    suffix: groups.length > 1 ? `@${(group[0] as ListenerInfo).irName.slice(gatewayKey.length + 1)}` : '',
  }));
}

/** Listeners with the same listener-level policies share one IR route; others get their own. */
function groupByListenerPolicy(gp: GatewayPolicies, ls: ListenerInfo[]): ListenerInfo[][] {
  const groups = new Map<string, ListenerInfo[]>();
  for (const l of [...ls].sort((a, b) => (a.irName < b.irName ? -1 : 1))) {
    const sig = listenerLevels(gp, l)
      .filter(
        (x) =>
          x.attachment.spec.traffic !== undefined ||
          x.attachment.spec.backend !== undefined ||
          x.attachment.refusals !== undefined,
      )
      .map((x) => `${x.attachment.policy.key}|${x.level}`)
      .sort()
      .join(',');
    const g = groups.get(sig);
    if (g) g.push(l);
    else groups.set(sig, [l]);
  }
  return [...groups.values()];
}
