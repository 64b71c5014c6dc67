// The proxy's view of an xDS resource set: decodes each body as the IR message the controller's
// snapshot source encodes, folds an update into the held set, and leaves out (with a per-resource
// message) whatever would make the snapshot inconsistent. Pure apart from the cached proto codec.
import { IR_RESOURCE_TYPE, decodeResource as decodeIr } from '../ir/load.js';
import type { Resource, Snapshot } from '../ir/types.js';
import { checkSnapshot, referenceProblems } from './snapshot-check.js';

export { IR_RESOURCE_TYPE };

export interface UpdateInput {
  upserts: Array<{ name: string; type: string; body: Uint8Array }>;
  removes: string[];
}

export interface ResourceError {
  name: string;
  message: string;
}

/** Decodes one body; throws an Error whose message says why the resource cannot be used. */
export function decodeResource(type: string, body: Uint8Array): Resource {
  if (type !== IR_RESOURCE_TYPE)
    throw new Error(`resource type ${type} is not one this proxy reads (expected ${IR_RESOURCE_TYPE})`);
  let r: Resource;
  try {
    r = decodeIr(body);
  } catch (err) {
    throw new Error(`body is not a valid ${IR_RESOURCE_TYPE}: ${(err as Error).message}`);
  }
  const value = r.kind ? r[r.kind] : undefined;
  if (!r.kind || !value) throw new Error('holds no bind, listener, route, backend or model');
  if (!(value as { name?: string }).name) throw new Error(`its ${r.kind} has no name`);
  return r;
}

export interface Plan {
  /** The resource set to apply, keyed by xDS resource name. */
  next: Map<string, Resource>;
  /** Upserts refused: the proxy serves no version of them (not even the one it held). */
  errors: ResourceError[];
  /** Held resources, not part of this update, dropped because the update left them dangling. */
  dropped: ResourceError[];
}

function describe(r: Resource): string | undefined {
  const value = r.kind ? (r[r.kind] as { name?: string } | undefined) : undefined;
  return r.kind && value?.name ? `${r.kind.charAt(0).toUpperCase()}${r.kind.slice(1)} ${value.name}` : undefined;
}

/**
 * Folds an update into the held set. A resource that cannot be decoded, or that the consistency check
 * rejects, is left out, and so is its previous version: what a proxy serves then depends on the
 * current snapshot alone, never on what it happened to hold before (a fresh proxy serves the same).
 * Held resources the update leaves dangling are dropped and reported apart.
 */
export function planUpdate(held: ReadonlyMap<string, Resource>, update: UpdateInput, source: string): Plan {
  const next = new Map(held);
  const errors: ResourceError[] = [];
  const dropped: ResourceError[] = [];
  const inUpdate = new Set<string>();
  for (const name of update.removes) {
    inUpdate.add(name);
    next.delete(name);
  }
  for (const u of update.upserts) {
    inUpdate.add(u.name);
    try {
      next.set(u.name, decodeResource(u.type, u.body));
    } catch (err) {
      errors.push({ name: u.name, message: (err as Error).message });
      next.delete(u.name);
    }
  }
  // Leaving one resource out may leave another dangling (a route whose new backend was rejected), so
  // repeat; every round removes at least one resource, so this ends.
  for (;;) {
    const problems = checkSnapshot(toSnapshot(next, ''), source);
    if (problems.length === 0) break;
    const byObject = new Map<string, string>();
    for (const [name, r] of next) {
      const d = describe(r);
      if (d) byObject.set(d, name);
    }
    const handled = new Set<string>();
    for (const p of problems) {
      const name = p.object ? byObject.get(p.object) : undefined;
      if (!name || handled.has(name)) continue;
      handled.add(name);
      next.delete(name);
      (inUpdate.has(name) ? errors : dropped).push({ name, message: `${p.path ? `${p.path}: ` : ''}${p.message}` });
    }
    if (handled.size === 0) break;
  }
  return { next, errors, dropped };
}

/** The runtime's snapshot for a resource set; binds without an address listen on `listenAddress`. */
export function toSnapshot(
  resources: ReadonlyMap<string, Resource>,
  version: string,
  listenAddress?: string,
): Snapshot {
  const list = [...resources.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
  return {
    version,
    resources: listenAddress
      ? list.map((r) => (r.bind && r.bind.address === '' ? { ...r, bind: { ...r.bind, address: listenAddress } } : r))
      : list,
  };
}

/**
 * A resource left out only because something it refers to is missing is explained against the final
 * set, naming every missing reference: the message then depends on what the proxy ends up holding, not
 * on the order in which an update's refusals were found (a proxy that held the resource before and a
 * fresh one say the same).
 */
export function explainDangling(
  left: ResourceError[],
  resourceOf: (name: string) => Resource | undefined,
  final: ReadonlyMap<string, Resource>,
  source: string,
): ResourceError[] {
  const names = new Map<string, Set<string>>();
  for (const r of final.values()) {
    const value = r.kind ? (r[r.kind] as { name?: string } | undefined) : undefined;
    if (r.kind && value?.name) names.set(r.kind, (names.get(r.kind) ?? new Set()).add(value.name));
  }
  const has = (kind: string, name: string) => names.get(kind)?.has(name) ?? false;
  return left.map((e) => {
    const r = DANGLING.test(e.message) ? resourceOf(e.name) : undefined;
    const problems = r ? referenceProblems(r, has, source) : [];
    if (problems.length === 0) return e;
    return { name: e.name, message: problems.map((p) => `${p.path}: ${p.message}`).join('; ') };
  });
}

const DANGLING = /^(bind|listeners\[\d+\]|backends\[\d+\]\.backend): refers to \w+ .*, which does not exist/;
