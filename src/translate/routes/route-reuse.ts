// Structural sharing between one gateway's translations: a route none of whose recorded reads (objects and
// index slots, memoized computations included) changed in the store since it was translated, on a gateway
// whose own reads did not change either, contributes what it contributed last time (its IR routes, the
// backends it reached, status pieces, conflicts, used attachments, attached-route counts) without being
// translated again. The same reads decide which gateways a change reaches (state.ts).
import type { BackendInput, RouteInput } from '../../ir/types.js';
import type { Named } from '../built-ir.js';
import type { ListenerInfo } from '../listeners/listeners.js';
import { inScope, type Ctx } from '../objects/context.js';
import { changedSince, type Store } from '../objects/store.js';
import type { StoredObject } from '../objects/types.js';
import type { GatewayPolicies } from '../policies/policies.js';
import type { Conflict } from '../policies/policy-merge.js';
import type { StatusPiece } from '../status/conditions.js';
import type { RouteSink } from './route-sink.js';
import { translateRoute } from './routes.js';

/** What one route contributed to its gateway's translation, and what it read to do so. */
export interface RouteRecord {
  /** Store revision when it was translated. */
  revision: number;
  /** An array, not the Set it was recorded in: thousands of records are held, and a Set is ~3x the size. */
  deps: string[];
  routes: Named<RouteInput>[];
  backends: [string, BackendInput][];
  pieces: [string, StatusPiece][];
  conflicts: Conflict[];
  used: string[];
  /** IR names of the listeners the route attached to (each counts it once in attachedRoutes). */
  attached: string[];
}

/** A gateway's route records from its last translation, with the reads outside any route. */
export interface GatewayRecords {
  revision: number;
  options: string;
  gatewayDeps: string[];
  routes: Map<string, RouteRecord>;
}

/** The records a translation may draw on, or undefined when the gateway's own reads or the options changed. */
export function usableRecords(
  store: Store,
  previous: GatewayRecords | undefined,
  options: string,
): GatewayRecords | undefined {
  if (!previous || previous.options !== options) return undefined;
  return changedSince(store, previous.gatewayDeps, previous.revision) ? undefined : previous;
}

/** translateRoute, or the replay of its previous record when none of its reads changed; returns the record. */
export function translateOrReuse(
  ctx: Ctx,
  gw: StoredObject,
  route: StoredObject,
  listeners: ListenerInfo[],
  gp: GatewayPolicies,
  sink: RouteSink,
  previous: RouteRecord | undefined,
): RouteRecord {
  if (previous && !changedSince(ctx.store, previous.deps, previous.revision)) {
    replay(ctx, previous, listeners, gp, sink);
    return previous;
  }
  return recorded(ctx, gw, route, listeners, gp, sink);
}

function replay(ctx: Ctx, r: RouteRecord, listeners: ListenerInfo[], gp: GatewayPolicies, sink: RouteSink): void {
  for (const d of r.deps) {
    ctx.deps.add(d);
    ctx.scope.add(d);
  }
  sink.routes.push(...r.routes);
  for (const [name, b] of r.backends) if (!sink.backends.has(name)) sink.backends.set(name, b);
  for (const [k, p] of r.pieces) sink.piece(k, p);
  sink.conflicts.push(...r.conflicts);
  for (const u of r.used) gp.used.add(u);
  for (const name of r.attached) {
    const l = listeners.find((x) => x.irName === name);
    if (l) l.status.attachedRoutes++;
  }
}

function recorded(
  ctx: Ctx,
  gw: StoredObject,
  route: StoredObject,
  listeners: ListenerInfo[],
  gp: GatewayPolicies,
  sink: RouteSink,
): RouteRecord {
  const rec: RouteRecord = {
    revision: ctx.store.revision,
    deps: [],
    routes: [],
    backends: [],
    pieces: [],
    conflicts: [],
    used: [],
    attached: [],
  };
  const touched = new Set<string>();
  const backends = touchedMap(sink.backends, touched);
  const used = new Set<string>();
  const view: RouteSink = {
    routes: rec.routes,
    backends,
    piece: (k, p) => {
      rec.pieces.push([k, p]);
      sink.piece(k, p);
    },
    conflicts: rec.conflicts,
  };
  const before = listeners.map((l) => l.status.attachedRoutes);
  const deps = new Set<string>();
  inScope(ctx, deps, () => translateRoute(ctx, gw, route, listeners, { ...gp, used }, view));
  rec.deps = [...deps];
  listeners.forEach((l, i) => {
    for (let n = l.status.attachedRoutes - (before[i] ?? 0); n > 0; n--) rec.attached.push(l.irName);
  });
  for (const u of used) gp.used.add(u);
  rec.used = [...used];
  for (const name of touched) {
    const b = sink.backends.get(name);
    if (b) rec.backends.push([name, b]);
  }
  sink.routes.push(...rec.routes);
  sink.conflicts.push(...rec.conflicts);
  return rec;
}

/** The sink's backend map, noting every name the route asks for or sets. */
function touchedMap(m: Map<string, BackendInput>, touched: Set<string>): Map<string, BackendInput> {
  return new Proxy(m, {
    get(target, prop) {
      if (prop === 'has' || prop === 'get' || prop === 'set')
        return (k: string, v?: BackendInput) => {
          touched.add(k);
          return prop === 'set' ? target.set(k, v as BackendInput) : target[prop](k);
        };
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
