// One Gateway of our class → one IR snapshot plus the status pieces it contributes. Pure: reads the
// store, returns plain data; `now` comes from the options.
import { createHash } from 'node:crypto';
import { condition, type Condition, type StatusPiece } from './status/conditions.js';
import { lookup, newCtx, read, readAny, type Ctx, type TranslateOptions } from './objects/context.js';
import type { BackendInput, ListenerInput, RouteInput } from '../ir/types.js';
import type { BuiltResource, BuiltSnapshot } from './built-ir.js';
import { agreeOnBindTls, listenerTlsSettings } from './listeners/frontend-tls.js';
import { agreeOnBindProxyProtocol, listenerFrontendSettings } from './listeners/frontend-settings.js';
import { collectListeners, listenerLimits, listenerRefusals, type ListenerInfo } from './listeners/listeners.js';
import { listenerTelemetry } from './listeners/telemetry.js';
import { translateModels } from './models/models.js';
import { policyBackendResolver } from './policies/ext-auth.js';
import type { Conflict } from './policies/policy-merge.js';
import { frontendPolicy, gatewayPolicies, type GatewayPolicies } from './policies/policies.js';
import { gatewayClassSpec, gatewaySpec } from './objects/gateway-api.js';
import { selectorMatches } from './objects/read.js';
import { fieldsOf } from './policies/policy-fields.js';
import { toAuthorization } from './policies/ir-policy.js';
import type { RouteSink } from './routes/route-sink.js';
import { translateOrReuse, usableRecords, type GatewayRecords, type RouteRecord } from './routes/route-reuse.js';
import { dependencyState, type Store } from './objects/store.js';
import { splitObjectKey, objectKey, type StoredObject } from './objects/types.js';

export interface GatewayTranslation {
  /** `ns/name` of the Gateway. */
  gateway: string;
  /** False when the Gateway does not exist or belongs to another controller: nothing to serve or report. */
  ours: boolean;
  snapshot: BuiltSnapshot;
  /** Object key (`Kind/ns/name`) → what this gateway says about it; assembled by status.ts. */
  statuses: Record<string, StatusPiece[]>;
  /** Object keys and index slots read; a change to any of them may change this translation. */
  deps: string[];
}

const EMPTY: BuiltSnapshot = { version: '', resources: [] };

export function isOurClass(ctx: Ctx, className: string): StoredObject | undefined {
  const cls = read(ctx, 'GatewayClass', className);
  return cls && gatewayClassSpec(cls).controllerName === ctx.options.controllerName ? cls : undefined;
}

/**
 * `records`: `previous` holds the route records of this gateway's last translation, to reuse what did not
 * change (route-reuse.ts); `next` receives this translation's.
 */
export interface RouteRecords {
  previous?: GatewayRecords;
  next?: GatewayRecords;
}

export function translateGateway(
  store: Store,
  gatewayKey: string,
  options: TranslateOptions,
  records?: RouteRecords,
): GatewayTranslation {
  const ctx = newCtx(store, options);
  const gatewayDeps = ctx.scope;
  const statuses: Record<string, StatusPiece[]> = {};
  const piece = (k: string, p: StatusPiece) => (statuses[k] ??= []).push(p);
  const done = (ours: boolean, snapshot: BuiltSnapshot): GatewayTranslation => ({
    gateway: gatewayKey,
    ours,
    snapshot,
    statuses,
    deps: [...ctx.deps].sort(),
  });
  const gw = readAny(ctx, 'Gateway', gatewayKey);
  if (!gw) return done(false, EMPTY);
  ctx.gateway = gw;
  const className = gatewaySpec(gw).gatewayClassName ?? '';
  if (!isOurClass(ctx, className) || !discovered(ctx, gw)) return done(false, EMPTY);
  const gen = gw.obj.metadata.generation ?? 0;
  const now = options.now;
  if (gw.problems.length) {
    const msg = gw.problems.map((p) => `${p.path}: ${p.message}`).join('; ');
    piece(objectKey('Gateway', gw.key), {
      kind: 'gateway',
      status: {
        conditions: [
          condition('Accepted', false, 'Invalid', msg, gen, now),
          condition('Programmed', false, 'Invalid', 'the Gateway is invalid', gen, now),
        ],
        listeners: [],
      },
    });
    return done(true, EMPTY);
  }
  const { listeners, listenerSets } = collectListeners(ctx, gw);
  const gp = gatewayPolicies(
    ctx,
    gw,
    listenerSets.filter((s) => s.accepted).map((s) => s.entry),
  );
  const sink: RouteSink = { routes: [], backends: new Map<string, BackendInput>(), piece, conflicts: [] as Conflict[] };
  const parents = [
    objectKey('Gateway', gw.key),
    ...listenerSets.filter((s) => s.accepted).map((s) => objectKey('ListenerSet', s.entry.key)),
  ];
  const routeKeys = new Set<string>();
  for (const p of parents) for (const r of lookup(ctx, 'routesByParent', p)) routeKeys.add(r);
  const optionsText = routeOptions(options);
  const previous = usableRecords(store, records?.previous, optionsText);
  const routeRecords = new Map<string, RouteRecord>();
  for (const rk of [...routeKeys].sort()) {
    const k = splitObjectKey(rk);
    const route = k && readAny(ctx, k.kind, k.key);
    if (route) routeRecords.set(rk, translateOrReuse(ctx, gw, route, listeners, gp, sink, previous?.routes.get(rk)));
  }
  const models = options.enableModels ? translateModels(ctx, gw, listeners, sink.routes, piece) : [];
  const irListeners = irListenersOf(ctx, gw, listeners, gp, sink);
  const ports = [...new Set(listeners.filter((x) => x.programmed).map((l) => l.port))].sort((a, b) => a - b);
  const resources: BuiltResource[] = [
    ...ports.map((port) => ({ kind: 'bind' as const, bind: { name: bindName(gw.key, port), port, address: '' } })),
    ...irListeners.sort(byName).map((listener) => ({ kind: 'listener' as const, listener })),
    ...sink.routes.sort(byName).map((route: RouteInput) => ({ kind: 'route' as const, route })),
    ...[...sink.backends.values()].sort(byName).map((backend) => ({ kind: 'backend' as const, backend })),
    ...models.sort(byName).map((model) => ({ kind: 'model' as const, model })),
  ];
  gatewayStatus(ctx, gw, listeners, listenerSets, piece);
  policyPieces(gp, sink.conflicts, gw.key, piece);
  if (records)
    records.next = {
      revision: store.revision,
      options: optionsText,
      gatewayDeps: [...gatewayDeps],
      routes: routeRecords,
    };
  return done(true, { version: snapshotVersion(store, ctx, options), resources });
}

const CLOSED_TO_ALL: ListenerInput['networkAuthorization'] = Object.freeze({
  rules: [Object.freeze({ expressions: ['true'], action: 'DENY' as const })],
});

/** The IR listeners of the programmed listeners, with their frontend policy and its refusals. */
function irListenersOf(
  ctx: Ctx,
  gw: StoredObject,
  listeners: ListenerInfo[],
  gp: GatewayPolicies,
  sink: RouteSink,
): ListenerInput[] {
  const out: ListenerInput[] = [];
  const tlsSources = new Map<string, string>();
  for (const l of listeners.filter((x) => x.programmed)) {
    const fe = frontendPolicy(gp, l);
    sink.conflicts.push(...fe.conflicts);
    const il: ListenerInput = {
      name: l.irName,
      bind: bindName(gw.key, l.port),
      hostnames: l.hostname ? [l.hostname] : [],
      protocol: l.protocol === 'HTTPS' ? 'HTTPS' : 'HTTP',
    };
    if (Object.keys(fe.fields).length) il.frontend = fieldsOf(fe);
    if (l.tls) il.tls = { ...l.tls, ...listenerTlsSettings(fe) };
    const telemetry = listenerTelemetry(fe, policyBackendResolver(ctx, fe.provenance));
    if (telemetry.telemetry) il.telemetry = telemetry.telemetry;
    for (const r of telemetry.refusals) {
      const policy = /^GwPolicy (.+)$/.exec(r.source)?.[1];
      if (policy)
        sink.piece(objectKey('GwPolicy', policy), { kind: 'policyRefusal', field: r.field, reason: r.reason });
    }
    const refused = [...listenerRefusals(fe), ...telemetry.refusals];
    if (refused.length) il.refusals = refused;
    const limits = listenerLimits(fe);
    if (limits) il.limits = limits;
    const network = fe.fields['frontend.networkAuthorization'];
    if (network) il.networkAuthorization = toAuthorization(network);
    // An invalid policy's networkAuthorization closes every connection (issue 31), by a rule the proxy already runs.
    if (fe.refusals?.some((r) => r.field === 'spec.frontend.networkAuthorization'))
      il.networkAuthorization = CLOSED_TO_ALL;
    Object.assign(il, listenerFrontendSettings(fe));
    out.push(il);
    tlsSources.set(il.name ?? '', fe.provenance['frontend.tls']?.source ?? '');
  }
  agreeOnBindTls(out, (name) => tlsSources.get(name) ?? '');
  agreeOnBindProxyProtocol(out, sink.piece);
  return out;
}

/** The policyAttached and policyConflict status pieces of this Gateway's translation (each conflict once). */
function policyPieces(
  gp: GatewayPolicies,
  conflicts: Conflict[],
  gatewayKey: string,
  piece: (k: string, p: StatusPiece) => void,
): void {
  for (const k of [...gp.used].sort()) {
    const [policyKey, idx] = k.split('|') as [string, string];
    piece(objectKey('GwPolicy', policyKey), { kind: 'policyAttached', targetIndex: Number(idx), gateway: gatewayKey });
  }
  const seen = new Set<string>();
  for (const c of conflicts) {
    const k = `${c.policyKey}|${c.targetIndex}|${c.field}|${c.winner}`;
    if (seen.has(k)) continue;
    seen.add(k);
    piece(objectKey('GwPolicy', c.policyKey), { kind: 'policyConflict', conflict: c });
  }
}

/**
 * The options route records are valid under. Pieces carry the `now` of the translation that made them; a
 * reused one still writes what a fresh one would, since the status writer keeps lastTransitionTime of
 * conditions whose status is unchanged.
 */
function routeOptions(options: TranslateOptions): string {
  return JSON.stringify({ ...options, now: undefined });
}

/** Bumped whenever translation output changes for the same input, so versions never alias across builds. */
export const TRANSLATOR_VERSION = 'gw-translate/1';

/**
 * The snapshot version hashes the inputs, not the output: translation is a pure function of the objects
 * and index slots it read (all recorded as dependencies) and of the options, so equal inputs give equal
 * content on every replica, at a fraction of the cost of serialising the whole snapshot.
 */
function snapshotVersion(store: Store, ctx: Ctx, options: TranslateOptions): string {
  const h = createHash('sha256');
  h.update(
    `${TRANSLATOR_VERSION}\n${options.controllerName}\n${options.enableModels === true}\n${options.enableInferenceExtension ? 'inference-extension\n' : ''}${JSON.stringify(options.discoveryNamespaceSelectors ?? [])}\n`,
  );
  for (const d of [...ctx.deps].sort()) h.update(`${d}=${dependencyState(store, d)}\n`);
  return h.digest('hex').slice(0, 16);
}

function byName(a: { name?: string }, b: { name?: string }): number {
  const x = a.name ?? '';
  const y = b.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}

export function bindName(gatewayKey: string, port: number): string {
  return `${gatewayKey}/${port}`;
}

/** discoveryNamespaceSelectors: Gateways only in namespaces matching one of them (OR); none = all. */
function discovered(ctx: Ctx, gw: StoredObject): boolean {
  const sels = ctx.options.discoveryNamespaceSelectors ?? [];
  if (sels.length === 0) return true;
  const labels = read(ctx, 'Namespace', gw.obj.metadata.namespace ?? '')?.obj.metadata.labels;
  return sels.some((s) => selectorMatches(s, labels));
}

function gatewayStatus(
  ctx: Ctx,
  gw: StoredObject,
  listeners: ReturnType<typeof collectListeners>['listeners'],
  listenerSets: ReturnType<typeof collectListeners>['listenerSets'],
  piece: (k: string, p: StatusPiece) => void,
): void {
  const gen = gw.obj.metadata.generation ?? 0;
  const now = ctx.options.now;
  const own = listeners.filter((l) => l.owner.kind === 'Gateway');
  const programmed = listeners.some((l) => l.programmed);
  const unresolved = own
    .map((l) => l.status.conditions.find((c) => c.type === 'ResolvedRefs' && c.status === 'False'))
    .find((c) => c);
  const params = parametersProblem(ctx, gw);
  const conds: Condition[] = [
    condition(
      'Accepted',
      !params,
      params ? 'InvalidParameters' : 'Accepted',
      params ?? 'the Gateway is accepted',
      gen,
      now,
    ),
    condition(
      'Programmed',
      programmed && !params,
      programmed && !params ? 'Programmed' : 'Invalid',
      params
        ? 'not programmed: the Gateway is not accepted (its GwParameters)'
        : programmed
          ? 'the snapshot for this Gateway is built'
          : 'no listener is programmed',
      gen,
      now,
    ),
    condition(
      'ResolvedRefs',
      !unresolved,
      unresolved?.reason ?? 'ResolvedRefs',
      unresolved?.message ?? 'all references resolved',
      gen,
      now,
    ),
  ];
  piece(objectKey('Gateway', gw.key), {
    kind: 'gateway',
    status: { conditions: conds, listeners: own.map((l) => l.status) },
  });
  for (const s of listenerSets) {
    const g = s.entry.obj.metadata.generation ?? 0;
    const ok = s.accepted && s.listeners.some((l) => l.programmed);
    piece(objectKey('ListenerSet', s.entry.key), {
      kind: 'listenerSet',
      status: {
        conditions: [
          condition('Accepted', s.accepted, s.accepted ? 'Accepted' : 'NotAllowed', s.message, g, now),
          condition(
            'Programmed',
            ok,
            ok ? 'Programmed' : 'Invalid',
            ok ? 'listeners are programmed' : 'no listener is programmed',
            g,
            now,
          ),
        ],
        listeners: s.listeners.map((l) => l.status),
      },
    });
  }
}

/** Gateway infrastructure.parametersRef must name an existing, valid GwParameters in its namespace. */
function parametersProblem(ctx: Ctx, gw: StoredObject): string | undefined {
  const ref = gatewaySpec(gw).infrastructure?.parametersRef;
  if (!ref) return undefined;
  const key = `${gw.obj.metadata.namespace ?? ''}/${ref.name ?? ''}`;
  if (ref.kind !== 'GwParameters')
    return `infrastructure.parametersRef kind ${ref.kind ?? ''} is not supported; use GwParameters`;
  const p = readAny(ctx, 'GwParameters', key);
  if (!p) return `GwParameters ${key} does not exist`;
  if (p.problems.length) return `GwParameters ${key} is invalid`;
  return undefined;
}
