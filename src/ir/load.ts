// Canonical IR values: any producer's snapshot goes through the proto codec once, so the runtime
// always sees the same complete shape the xDS stream will decode (defaults filled, enums as names).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSync, type MessageTypeDefinition } from '@grpc/proto-loader';
import type { Snapshot, SnapshotInput, Resource } from './types.js';

const protoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../proto');

type SnapshotCodec = MessageTypeDefinition<SnapshotInput, Snapshot>;

let snapshotType: SnapshotCodec | undefined;

function snapshotDefinition(): SnapshotCodec {
  if (!snapshotType) {
    const pkg = loadSync('gw/ir/v1/ir.proto', {
      includeDirs: [protoRoot], longs: String, enums: String, defaults: true, oneofs: true,
    });
    snapshotType = pkg['gw.ir.v1.Snapshot'] as SnapshotCodec;
  }
  return snapshotType;
}

export function encodeSnapshot(snapshot: SnapshotInput): Buffer {
  return snapshotDefinition().serialize(snapshot);
}

export function decodeSnapshot(bytes: Buffer): Snapshot {
  return snapshotDefinition().deserialize(bytes);
}

/** Round-trips through the wire format: unknown fields drop, defaults appear, enums become names. */
export function normalizeSnapshot(snapshot: SnapshotInput): Snapshot {
  return decodeSnapshot(encodeSnapshot(snapshot));
}

type Kind = NonNullable<Resource['kind']>;
type Of<K extends Kind> = NonNullable<Resource[K]>;

/** Resources of one kind, keyed by name. */
export function resourcesOf<K extends Kind>(snapshot: Snapshot, kind: K): Map<string, Of<K>> {
  const out = new Map<string, Of<K>>();
  for (const r of snapshot.resources) {
    const value = r[kind];
    if (r.kind === kind && value) out.set((value as { name: string }).name, value as Of<K>);
  }
  return out;
}
