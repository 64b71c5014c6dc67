// Canonical IR values: any producer's snapshot goes through the proto codec once, so the runtime
// always sees the same complete shape the xDS stream will decode (defaults filled, enums as names).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSync, type MessageTypeDefinition } from '@grpc/proto-loader';
import type { Snapshot, SnapshotInput, Resource, ResourceInput } from './types.js';

const protoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../proto');

/** The xDS type of every IR resource body: one serialized `gw.ir.v1.Resource`. */
export const IR_RESOURCE_TYPE = 'gw.ir.v1.Resource';

type SnapshotCodec = MessageTypeDefinition<SnapshotInput, Snapshot>;
type ResourceCodec = MessageTypeDefinition<ResourceInput, Resource>;

let codecs: { snapshot: SnapshotCodec; resource: ResourceCodec } | undefined;

function ir(): { snapshot: SnapshotCodec; resource: ResourceCodec } {
  if (!codecs) {
    const pkg = loadSync('gw/ir/v1/ir.proto', {
      includeDirs: [protoRoot],
      longs: String,
      enums: String,
      defaults: true,
      oneofs: true,
    });
    codecs = {
      snapshot: pkg['gw.ir.v1.Snapshot'] as SnapshotCodec,
      resource: pkg['gw.ir.v1.Resource'] as ResourceCodec,
    };
  }
  return codecs;
}

function snapshotDefinition(): SnapshotCodec {
  return ir().snapshot;
}

export function encodeResource(resource: ResourceInput): Buffer {
  return ir().resource.serialize(resource);
}

/** Throws on bytes that are not a `gw.ir.v1.Resource`. */
export function decodeResource(bytes: Uint8Array): Resource {
  return ir().resource.deserialize(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
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
