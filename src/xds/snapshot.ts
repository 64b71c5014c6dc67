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
}

export interface ResourceDiff {
  upserts: WireResource[];
  removes: string[];
}

// Hashing is the costly part of a push; bodies the source hands out again keep their version.
const versionOf = new WeakMap<Uint8Array, string>();

function memoVersion(body: Uint8Array): string {
  let v = versionOf.get(body);
  if (v === undefined) {
    v = resourceVersion(body);
    versionOf.set(body, v);
  }
  return v;
}

export function versionSnapshot(resources: ReadonlyMap<string, XdsResource>): VersionedSnapshot {
  const wire = new Map<string, WireResource>();
  const versions = new Map<string, string>();
  for (const [name, r] of resources) {
    const version = memoVersion(r.body);
    wire.set(name, { name, type: r.type, version, body: r.body });
    versions.set(name, version);
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
