// What a gateway's snapshot looks like to the transport, and the difference between two of them.
// Pure functions: the server and the tests use them alike.
import { resourceVersion, snapshotVersion, type WireResource } from './protocol.js';

/** One resource of a gateway's snapshot as the controller hands it over; the body is opaque here. */
export interface XdsResource {
  type: string;
  body: Uint8Array;
}

export interface VersionedSnapshot {
  resources: ReadonlyMap<string, WireResource>;
  versions: ReadonlyMap<string, string>;
  systemVersion: string;
  /**
   * The change from the gateway's previous snapshot, computed and encoded once and shared by every
   * proxy that held exactly that one (set by the connection registry; only the latest keeps its link).
   */
  delta?: SharedDelta;
}

export interface SharedDelta {
  from: VersionedSnapshot;
  diff: ResourceDiff;
  /** Upserted and removed names, in that order. */
  names: string[];
  encoded?: { head: Buffer; tail: Buffer };
}

export interface ResourceDiff {
  upserts: WireResource[];
  removes: string[];
}

// Hashing is the costly part of a push; bodies the source hands out again keep their version, and the
// same WireResource object (so its encoding, src/xds/wire.ts, is made once per version).
const wireOf = new WeakMap<Uint8Array, WireResource>();

function memoWire(name: string, type: string, body: Uint8Array): WireResource {
  const known = wireOf.get(body);
  if (known && known.name === name && known.type === type) return known;
  const wire = { name, type, version: known?.version ?? resourceVersion(body), body };
  wireOf.set(body, wire);
  return wire;
}

export function versionSnapshot(resources: ReadonlyMap<string, XdsResource>): VersionedSnapshot {
  const wire = new Map<string, WireResource>();
  const versions = new Map<string, string>();
  for (const [name, r] of resources) {
    const w = memoWire(name, r.type, r.body);
    wire.set(name, w);
    versions.set(name, w.version);
  }
  return { resources: wire, versions, systemVersion: snapshotVersion(versions) };
}

/** What must be sent to a proxy holding `held` ({name → version}) so it ends up with `snapshot`. */
export function diffSnapshot(held: ReadonlyMap<string, string>, snapshot: VersionedSnapshot): ResourceDiff {
  const upserts: WireResource[] = [];
  for (const [name, r] of snapshot.resources) {
    if (held.get(name) !== r.version) upserts.push(r);
  }
  const removes: string[] = [];
  for (const name of held.keys()) {
    if (!snapshot.resources.has(name)) removes.push(name);
  }
  upserts.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  removes.sort();
  return { upserts, removes };
}

/** `next` with its shared delta from `prev` (whose own link is dropped, so old snapshots are not kept). */
export function linkSnapshots(prev: VersionedSnapshot, next: VersionedSnapshot): VersionedSnapshot {
  prev.delta = undefined;
  const diff = diffSnapshot(prev.versions, next);
  next.delta = { from: prev, diff, names: [...diff.upserts.map((r) => r.name), ...diff.removes] };
  return next;
}
