// Whole-store translation and incremental re-translation: after one object changes, only the gateways
// that read it (or an index slot it occupies) are translated again and only the statuses those
// gateways or the object itself can touch are reassembled.
import type { StatusPiece } from './status/conditions.js';
import type { TranslateOptions } from './objects/context.js';
import type { BuiltSnapshot } from './built-ir.js';
import { backendTlsPolicyTargets } from './backends/backend-tls-policy-checks.js';
import { referencedSecrets, selectsKeys } from './policies/policy-secrets.js';
import { guardrailServices } from './backends/mcp-guardrails.js';
import { gatewayClassSpec, gatewaySpec } from './objects/gateway-api.js';
import { uncheckedPolicySpec } from './objects/gw-unchecked.js';
import { getObject, indexed, indexKeysOf, listObjects, type Store } from './objects/store.js';
import { objectStatus, type ObjectStatus } from './status/status.js';
import { translateGateway, type GatewayTranslation, type RouteRecords } from './translate.js';
import type { GatewayRecords } from './routes/route-reuse.js';
import { objectKey, splitObjectKey, type StoredObject } from './objects/types.js';

export interface TranslationState {
  options: TranslateOptions;
  gateways: Map<string, GatewayTranslation>;
  /** Dependency (object key or index slot) → gateways that read it. */
  readers: Map<string, Set<string>>;
  statuses: Map<string, ObjectStatus>;
  /** Each gateway's route records, so the next translation of it reuses the routes nothing changed under. */
  records: Map<string, GatewayRecords>;
}

export interface ChangeResult {
  /** Gateways translated again, sorted. */
  gateways: string[];
  /** Object keys whose status was reassembled (the value may be unchanged). */
  statuses: string[];
}

/** Snapshots of every Gateway of our class, keyed by `ns/name`. */
export function snapshots(state: TranslationState): Map<string, BuiltSnapshot> {
  const out = new Map<string, BuiltSnapshot>();
  for (const [k, t] of [...state.gateways].sort(([a], [b]) => (a < b ? -1 : 1))) if (t.ours) out.set(k, t.snapshot);
  return out;
}

export function translateAll(store: Store, options: TranslateOptions): TranslationState {
  const state = emptyState(options);
  for (const gw of listObjects(store, 'Gateway')) translateRecorded(state, store, gw.key);
  refreshAllStatuses(state, store);
  return state;
}

/**
 * Gateways whose snapshot or statuses may change when `changedObjectKey` changes: those that read the
 * object or an index slot it occupies now or occupied before (`previous`, the replaced or deleted entry).
 */
export function affectedGateways(
  store: Store,
  changedObjectKey: string,
  state: TranslationState,
  previous?: StoredObject,
): string[] {
  const k = splitObjectKey(changedObjectKey);
  const out = new Set<string>();
  const deps = [changedObjectKey];
  const now = k && getObject(store, k.kind, k.key);
  if (now) deps.push(...indexKeysOf(now));
  if (previous) deps.push(...indexKeysOf(previous));
  for (const d of deps) for (const g of state.readers.get(d) ?? []) out.add(g);
  if (k?.kind === 'Gateway') out.add(k.key);
  if (k?.kind === 'GatewayClass') for (const g of indexed(store, 'gatewaysByClass', k.key)) out.add(g);
  // Class-level GwParameters: the deployer of every Gateway of a class naming them must run again.
  if (k?.kind === 'GwParameters')
    for (const c of classesNaming(store, k.key)) for (const g of indexed(store, 'gatewaysByClass', c)) out.add(g);
  return [...out].sort();
}

/** GatewayClasses whose `spec.parametersRef` names the GwParameters `ns/name`. */
function classesNaming(store: Store, parametersKey: string): string[] {
  return listObjects(store, 'GatewayClass')
    .filter((c) => {
      const ref = gatewayClassSpec(c).parametersRef;
      return (
        ref !== undefined && ref.kind === 'GwParameters' && `${ref.namespace ?? ''}/${ref.name ?? ''}` === parametersKey
      );
    })
    .map((c) => c.key);
}

/** Applies the consequences of one object having been put into or removed from `store`. */
export function applyChange(
  state: TranslationState,
  store: Store,
  changedObjectKey: string,
  previous?: StoredObject,
): ChangeResult {
  return applyChanges(state, store, [{ key: changedObjectKey, previous }]);
}

/** An object key (`Kind/ns/name`) and the store entry it replaced or deleted (undefined: it was new). */
export interface ObjectChange {
  key: string;
  previous: StoredObject | undefined;
}

/**
 * The consequences of several changes at once: every affected gateway is translated once, however many
 * of the changes it reads (a burst of 500 routes on one gateway is one translation, not 500).
 */
export function applyChanges(state: TranslationState, store: Store, changes: readonly ObjectChange[]): ChangeResult {
  const plan = planChanges(state, store, changes);
  for (const g of plan.gateways) translateInto(state, store, g, plan.dirty);
  return finishChanges(state, store, plan);
}

/** What a batch of changes needs: the gateways to translate again and the statuses known to be dirty. */
export interface ChangePlan {
  gateways: string[];
  dirty: Set<string>;
}

export function planChanges(state: TranslationState, store: Store, changes: readonly ObjectChange[]): ChangePlan {
  const gateways = new Set<string>();
  const dirty = new Set<string>();
  for (const c of changes) {
    dirty.add(c.key);
    for (const g of affectedGateways(store, c.key, state, c.previous)) gateways.add(g);
    for (const k of relatedStatuses(store, c.key, c.previous)) dirty.add(k);
  }
  return { gateways: [...gateways].sort(), dirty };
}

/** Translates one gateway of a plan again; its old and new statuses become dirty. */
export function translateInto(state: TranslationState, store: Store, gateway: string, dirty: Set<string>): void {
  const before = state.records.get(gateway)?.options;
  const old = state.gateways.get(gateway)?.statuses ?? {};
  const t = translateRecorded(state, store, gateway);
  // With the same options, a status whose pieces from this gateway are the same is dirty only if the
  // changes reach it directly (planChanges), as for objects no re-translated gateway mentions.
  const same = before !== undefined && before === state.records.get(gateway)?.options;
  for (const k of Object.keys(old)) if (!same || !samePieces(old[k], t.statuses[k])) dirty.add(k);
  for (const k of Object.keys(t.statuses)) if (!same || !(k in old)) dirty.add(k);
}

function samePieces(a: readonly StatusPiece[] | undefined, b: readonly StatusPiece[] | undefined): boolean {
  if (!a || !b || a.length !== b.length) return false;
  return a.every((p, i) => p === b[i] || JSON.stringify(p) === JSON.stringify(b[i]));
}

/** Translates one gateway, reusing its unchanged routes, and keeps the records for its next translation. */
function translateRecorded(state: TranslationState, store: Store, gateway: string): GatewayTranslation {
  const records: RouteRecords = { previous: state.records.get(gateway) };
  const t = translateGateway(store, gateway, state.options, records);
  setGateway(state, t);
  if (records.next) state.records.set(gateway, records.next);
  else state.records.delete(gateway);
  return t;
}

/** Reassembles the dirty statuses once every gateway of the plan is translated. */
export function finishChanges(state: TranslationState, store: Store, plan: ChangePlan): ChangeResult {
  for (const k of plan.dirty) refreshStatus(state, store, k);
  return { gateways: plan.gateways, statuses: [...plan.dirty].sort() };
}

/** An empty state to fill gateway by gateway (`translateInto`), then finish with `refreshAllStatuses`. */
export function emptyState(options: TranslateOptions): TranslationState {
  return { options, gateways: new Map(), readers: new Map(), statuses: new Map(), records: new Map() };
}

export function refreshAllStatuses(state: TranslationState, store: Store): void {
  for (const k of allObjectKeys(store)) refreshStatus(state, store, k);
}

export function allObjectKeys(store: Store): string[] {
  const out: string[] = [];
  for (const kind of store.objects.keys()) for (const e of listObjects(store, kind)) out.push(objectKey(kind, e.key));
  return out;
}

/** Objects whose own status reads the changed object without any gateway in between. */
function relatedStatuses(store: Store, changed: string, previous?: StoredObject): string[] {
  const k = splitObjectKey(changed);
  if (!k) return [];
  const ns = k.key.includes('/') ? k.key.slice(0, k.key.indexOf('/')) : '';
  const out: string[] = [];
  // Policies report TargetNotFound for missing targets; GwBackends report missing Services.
  for (const p of indexed(store, 'policiesByTarget', changed)) out.push(objectKey('GwPolicy', p));
  for (const p of indexed(store, 'selectorPolicies', `${k.kind}/${ns}`)) out.push(objectKey('GwPolicy', p));
  // BackendTLSPolicies report missing Services, ConfigMaps and older rivals for the same Service.
  for (const p of indexed(store, 'backendTlsPoliciesByTarget', changed)) out.push(objectKey('BackendTLSPolicy', p));
  if (k.kind === 'ConfigMap')
    for (const p of indexed(store, 'byNamespace', `BackendTLSPolicy/${ns}`)) out.push(objectKey('BackendTLSPolicy', p));
  if (k.kind === 'BackendTLSPolicy') {
    const now = getObject(store, k.kind, k.key);
    const targets = [
      ...(now ? backendTlsPolicyTargets(now) : []),
      ...(previous ? backendTlsPolicyTargets(previous) : []),
    ];
    for (const t of new Set(targets))
      for (const p of indexed(store, 'backendTlsPoliciesByTarget', t)) out.push(objectKey('BackendTLSPolicy', p));
  }
  // GwBackends also report their providers' credential Secrets (and cloud keys) that are missing.
  if (k.kind === 'Service' || k.kind === 'Namespace' || k.kind === 'Secret')
    for (const b of listObjects(store, 'GwBackend'))
      if (k.kind === 'Namespace' || b.obj.metadata.namespace === ns) out.push(objectKey('GwBackend', b.key));
  // Policies explain authentication Secrets that are missing or unusable, and API keys they select by labels
  // (any Secret or ConfigMap of their namespace may have gained or lost the labels).
  if (k.kind === 'Secret' || k.kind === 'ConfigMap') {
    const name = k.key.slice(ns.length + 1);
    for (const p of listObjects(store, 'GwPolicy')) {
      if (p.obj.metadata.namespace !== ns) continue;
      const { traffic, backend } = uncheckedPolicySpec(p.obj.spec);
      const names = k.kind === 'Secret' ? referencedSecrets(traffic) : [];
      // A backend section may name Secrets too (prompt-guard and backend credentials): its status explains them.
      const backendSecrets = k.kind === 'Secret' && backend !== undefined;
      if (names.includes(name) || selectsKeys(traffic, k.kind) || backendSecrets)
        out.push(objectKey('GwPolicy', p.key));
    }
  }
  // Policies explain guardrail processors whose Service is missing or not granted to them.
  if (k.kind === 'Service' || k.kind === 'ReferenceGrant') {
    for (const p of listObjects(store, 'GwPolicy')) {
      const services = guardrailServices(p.obj.metadata.namespace ?? '', uncheckedPolicySpec(p.obj.spec).backend);
      if (k.kind === 'ReferenceGrant' ? services.length > 0 : services.includes(k.key))
        out.push(objectKey('GwPolicy', p.key));
    }
  }
  if (k.kind === 'GatewayClass' || (k.kind === 'Gateway' && classChanged(store, k.key, previous))) {
    for (const p of listObjects(store, 'GwPolicy')) out.push(objectKey('GwPolicy', p.key));
  }
  return out;
}

function classChanged(store: Store, key: string, previous?: StoredObject): boolean {
  const now = getObject(store, 'Gateway', key);
  const className = (e: StoredObject | undefined) => (e ? gatewaySpec(e).gatewayClassName : undefined);
  return className(now) !== className(previous);
}

function setGateway(state: TranslationState, t: GatewayTranslation): void {
  const old = state.gateways.get(t.gateway);
  for (const d of old?.deps ?? []) state.readers.get(d)?.delete(t.gateway);
  state.gateways.set(t.gateway, t);
  for (const d of t.deps) {
    let s = state.readers.get(d);
    if (!s) state.readers.set(d, (s = new Set()));
    s.add(t.gateway);
  }
}

function piecesFor(state: TranslationState, objKey: string): StatusPiece[] {
  const out: StatusPiece[] = [];
  // Only gateways that mention the object contribute; readers of the key are a superset of those.
  const gws = new Set([...(state.readers.get(objKey) ?? [])]);
  const k = splitObjectKey(objKey);
  if (k?.kind === 'Gateway') gws.add(k.key);
  for (const g of [...gws].sort()) out.push(...(state.gateways.get(g)?.statuses[objKey] ?? []));
  return out;
}

/** Reassembles one object's status from the gateways that mention it. */
export function refreshStatus(state: TranslationState, store: Store, objKey: string): void {
  const s = objectStatus(store, objKey, piecesFor(state, objKey), state.options);
  if (s === undefined) state.statuses.delete(objKey);
  else state.statuses.set(objKey, s);
}
