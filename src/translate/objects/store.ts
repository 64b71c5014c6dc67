// The translator's view of the world: plain objects keyed by kind and `ns/name`, plus the few reverse
// indexes that let one gateway be translated without scanning every object in the store.
import type { Problem } from '../../problem.js';
import { createHash } from 'node:crypto';
import { gatewaySpec, listenerSetSpec, routeParents } from './gateway-api.js';
import { uncheckedModelSpec, uncheckedPolicySpec } from './gw-unchecked.js';
import { stableStringify } from './read.js';
import { podFingerprintPart } from './inference-pool.js';
import {
  GROUP,
  isClusterScoped,
  nameKey,
  objectKey,
  splitObjectKey,
  type Kind,
  type KubeObject,
  type ObjectMeta,
  type StoredObject,
} from './types.js';
import { validateObject } from './validate.js';
import type { ParentReference } from './gateway-api.js';
import { backendTlsPolicyTargets } from '../backends/backend-tls-policy-checks.js';

interface Indexes {
  /** `Gateway/ns/name` or `ListenerSet/ns/name` → object keys (`HTTPRoute/ns/name`) of routes naming it as parent. */
  routesByParent: Map<string, Set<string>>;
  /** `Gateway/ns/name` → ListenerSet keys naming it as parent. */
  listenerSetsByGateway: Map<string, Set<string>>;
  /** GatewayClass name → Gateway keys. */
  gatewaysByClass: Map<string, Set<string>>;
  /** Target object key → GwPolicy keys naming it in targetRefs. */
  policiesByTarget: Map<string, Set<string>>;
  /** `Kind/ns` → GwPolicy keys with a targetSelector for that kind in that namespace. */
  selectorPolicies: Map<string, Set<string>>;
  /** `Service/ns/name` → BackendTLSPolicy keys naming it in targetRefs. */
  backendTlsPoliciesByTarget: Map<string, Set<string>>;
  /** Parent object key → GwModel keys. */
  modelsByParent: Map<string, Set<string>>;
  /** `Kind/ns` → keys of that kind in that namespace (Services, ReferenceGrants). */
  byNamespace: Map<string, Set<string>>;
}

export interface Store {
  objects: Map<Kind, Map<string, StoredObject>>;
  index: Indexes;
  /** Bumped by every put and remove. */
  revision: number;
  /** Dependency key (`Kind/ns/name`, `index:<name>:<slot>`) → revision of its last change since `floor`. */
  changedAt: Map<string, number>;
  /** Revision when `changedAt` was last emptied (deleted objects' keys would otherwise pile up). */
  floor: number;
}

export function createStore(): Store {
  return {
    objects: new Map(),
    index: {
      routesByParent: new Map(),
      listenerSetsByGateway: new Map(),
      gatewaysByClass: new Map(),
      policiesByTarget: new Map(),
      selectorPolicies: new Map(),
      modelsByParent: new Map(),
      byNamespace: new Map(),
      backendTlsPoliciesByTarget: new Map(),
    },
    revision: 0,
    changedAt: new Map(),
    floor: 0,
  };
}

/** Whether any of `deps` changed after `revision` (a translation that read them then may be reused). */
export function changedSince(store: Store, deps: Iterable<string>, revision: number): boolean {
  if (revision < store.floor) return true;
  for (const d of deps) if ((store.changedAt.get(d) ?? 0) > revision) return true;
  return false;
}

function touch(store: Store, kind: Kind, e: StoredObject, slots: readonly IndexEntry[]): void {
  const r = ++store.revision;
  if (store.changedAt.size > 4 * storeSize(store) + 10_000) {
    store.changedAt.clear();
    store.floor = r;
  }
  store.changedAt.set(objectKey(kind, e.key), r);
  for (const [idx, k] of slots) store.changedAt.set(`index:${idx}:${k}`, r);
}

/** Maps a reference's group and kind onto a store kind; undefined for kinds Gw does not know. */
export function refKind(group: string | undefined, kind: string | undefined, fallback: Kind): Kind | undefined {
  if (kind === undefined) return fallback;
  const g = group ?? (fallback === 'Service' ? GROUP.core : fallback.startsWith('Gw') ? GROUP.gw : GROUP.gateway);
  if (g === GROUP.gateway && (kind === 'Gateway' || kind === 'HTTPRoute' || kind === 'GRPCRoute')) return kind;
  if ((g === GROUP.listenerSet || g === GROUP.gateway) && (kind === 'ListenerSet' || kind === 'XListenerSet'))
    return 'ListenerSet';
  if (g === GROUP.core && kind === 'Service') return 'Service';
  if (g === GROUP.gw && (kind === 'GwBackend' || kind === 'GwModel')) return kind;
  return undefined;
}

export function getObject(store: Store, kind: Kind, key: string): StoredObject | undefined {
  return store.objects.get(kind)?.get(key);
}

export function listObjects(store: Store, kind: Kind): StoredObject[] {
  return [...(store.objects.get(kind)?.values() ?? [])];
}

export function storeSize(store: Store): number {
  let n = 0;
  for (const m of store.objects.values()) n += m.size;
  return n;
}

/** Adds or replaces an object; invalid objects are kept (so their status can say why) but flagged. */
export function putObject(store: Store, kind: Kind, obj: KubeObject, source: string): StoredObject {
  const ns = isClusterScoped(kind) ? undefined : (obj.metadata.namespace ?? 'default');
  const key = nameKey(ns, obj.metadata.name);
  const normalized: KubeObject = ns === undefined ? obj : { ...obj, metadata: { ...obj.metadata, namespace: ns } };
  const problems: Problem[] = validateObject(kind, normalized, source);
  removeObject(store, kind, key);
  const entry: StoredObject = {
    kind,
    key,
    obj: normalized,
    source,
    problems,
    fingerprint: fingerprintOf(kind, normalized),
  };
  let m = store.objects.get(kind);
  if (!m) store.objects.set(kind, (m = new Map()));
  m.set(key, entry);
  const slots = indexEntries(entry);
  for (const [idx, k] of slots) add(store.index[idx], k, indexValue(idx, entry));
  touch(store, kind, entry, slots);
  return entry;
}

export function removeObject(store: Store, kind: Kind, key: string): StoredObject | undefined {
  const old = store.objects.get(kind)?.get(key);
  if (!old) return undefined;
  store.objects.get(kind)?.delete(key);
  const slots = indexEntries(old);
  for (const [idx, k] of slots) store.index[idx].get(k)?.delete(indexValue(idx, old));
  touch(store, kind, old, slots);
  return old;
}

function fingerprintOf(kind: Kind, obj: KubeObject): string {
  const { status: _status, metadata, ...rest } = obj;
  const {
    resourceVersion: _rv,
    managedFields: _mf,
    ...meta
  } = metadata as ObjectMeta & { resourceVersion?: unknown; managedFields?: unknown };
  return createHash('sha256')
    .update(stableStringify({ ...rest, metadata: meta, ...podFingerprintPart(kind, obj) }))
    .digest('base64url')
    .slice(0, 22);
}

/** Route indexes hold two kinds (HTTPRoute, GRPCRoute), so they store full object keys. */
function indexValue(idx: keyof Indexes, e: StoredObject): string {
  return idx === 'routesByParent' ? objectKey(e.kind, e.key) : e.key;
}

function add(m: Map<string, Set<string>>, k: string, v: string): void {
  let s = m.get(k);
  if (!s) m.set(k, (s = new Set()));
  s.add(v);
}

type IndexEntry = [keyof Indexes, string];

/** Every index slot an object occupies (valid or not); used both to add and to remove it. */
function indexEntries(e: StoredObject): IndexEntry[] {
  const out: IndexEntry[] = [];
  const ns = e.obj.metadata.namespace ?? '';
  out.push(['byNamespace', `${e.kind}/${ns}`]);
  const parents = (idx: keyof Indexes, refs: readonly ParentReference[] | undefined): void => {
    for (const p of refs ?? []) {
      const k = refKind(p.group, p.kind, 'Gateway');
      if (k) out.push([idx, objectKey(k, nameKey(p.namespace ?? ns, p.name ?? ''))]);
    }
  };
  switch (e.kind) {
    case 'Gateway':
      out.push(['gatewaysByClass', gatewaySpec(e).gatewayClassName ?? '']);
      break;
    case 'HTTPRoute':
    case 'GRPCRoute':
      parents('routesByParent', routeParents(e));
      break;
    case 'ListenerSet': {
      const p = listenerSetSpec(e).parentRef;
      out.push(['listenerSetsByGateway', objectKey('Gateway', nameKey(p?.namespace ?? ns, p?.name ?? ''))]);
      break;
    }
    case 'GwPolicy': {
      const spec = uncheckedPolicySpec(e.obj.spec);
      for (const t of spec.targetRefs ?? []) {
        const k = refKind(t.group, t.kind, 'Gateway');
        if (k) out.push(['policiesByTarget', objectKey(k, nameKey(ns, t.name ?? ''))]);
      }
      for (const t of spec.targetSelectors ?? []) {
        const k = refKind(t.group, t.kind, 'Gateway');
        if (k) out.push(['selectorPolicies', `${k}/${ns}`]);
      }
      break;
    }
    case 'BackendTLSPolicy':
      for (const t of backendTlsPolicyTargets(e)) out.push(['backendTlsPoliciesByTarget', t]);
      break;
    case 'GwModel':
      parents('modelsByParent', uncheckedModelSpec(e.obj.spec).parentRefs);
      break;
    default:
      break;
  }
  return out;
}

/** `index:<name>:<slot>` keys an object occupies, matching the index keys Ctx records as dependencies. */
export function indexKeysOf(e: StoredObject): string[] {
  return indexEntries(e).map(([idx, k]) => `index:${idx}:${k}`);
}

/** The state of one dependency (`Kind/ns/name` or `index:<name>:<slot>`): a fingerprint or a member list. */
export function dependencyState(store: Store, dep: string): string {
  if (dep.startsWith('index:')) {
    const i = dep.indexOf(':', 6);
    return indexed(store, dep.slice(6, i) as keyof Indexes, dep.slice(i + 1)).join(',');
  }
  const k = splitObjectKey(dep);
  const e = k && getObject(store, k.kind, k.key);
  return e ? `${e.fingerprint}${e.problems.length ? '!' : ''}` : '-';
}

export function indexed(store: Store, idx: keyof Indexes, k: string): string[] {
  return [...(store.index[idx].get(k) ?? [])].sort();
}
