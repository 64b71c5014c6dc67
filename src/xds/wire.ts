// The server's encoder of DeltaResponse. A change is pushed to every proxy of a gateway, and all but
// the nonce is the same for each: protobuf fields concatenate, so each resource is encoded once per
// version, the shared part of a response once per change, and each stream adds only its nonce. The
// bytes are those proto-loader's serializer writes (fields in number order), test/xds/wire.test.ts.
import type * as grpc from '@grpc/grpc-js';
import type { DeltaResponse, WireResource } from './protocol.js';

/** A response whose shared parts are already encoded; the stream's serializer adds the nonce. */
export class EncodedResponse {
  constructor(
    /** Fields 1 and 2: resources and removed names. */
    readonly head: Buffer,
    /** Field 4: system_version_info. */
    readonly tail: Buffer,
    readonly nonce: string,
  ) {}
}

function varintLength(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}

function writeVarint(buf: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    buf[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  buf[at++] = n;
  return at;
}

/** One length-delimited field: tag, length, bytes. */
function lengthField(field: number, bytes: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(1 + varintLength(bytes.length) + bytes.length);
  const at = writeVarint(out, writeVarint(out, 0, (field << 3) | 2), bytes.length);
  out.set(bytes, at);
  return out;
}

const stringField = (field: number, text: string) => lengthField(field, Buffer.from(text, 'utf8'));

// A WireResource is built once per resource version and shared by every snapshot and stream holding it.
const encodedResources = new WeakMap<WireResource, Buffer>();

/** Field 1 of DeltaResponse for one resource: a Resource {name, type, version, body}. */
function resourceField(r: WireResource): Buffer {
  let out = encodedResources.get(r);
  if (!out) {
    const inner = Buffer.concat([
      stringField(1, r.name),
      stringField(2, r.type),
      stringField(3, r.version),
      lengthField(4, r.body),
    ]);
    out = lengthField(1, inner);
    encodedResources.set(r, out);
  }
  return out;
}

/** The shared parts of a response: upserts and removes, and the snapshot's version. */
export function encodeShared(
  upserts: readonly WireResource[],
  removes: readonly string[],
  systemVersion: string,
): { head: Buffer; tail: Buffer } {
  const parts = upserts.map(resourceField);
  for (const name of removes) parts.push(stringField(2, name));
  return { head: Buffer.concat(parts), tail: stringField(4, systemVersion) };
}

/** What grpc-js writes for one response: the shared bytes with this stream's nonce between them. */
export function serializeResponse(resp: EncodedResponse): Buffer {
  const { head, tail, nonce } = resp;
  const nonceBytes = Buffer.byteLength(nonce, 'utf8');
  const out = Buffer.allocUnsafe(head.length + 1 + varintLength(nonceBytes) + nonceBytes + tail.length);
  let at = head.copy(out, 0);
  at = writeVarint(out, writeVarint(out, at, (3 << 3) | 2), nonceBytes);
  at += out.write(nonce, at, 'utf8');
  tail.copy(out, at);
  return out;
}

/** The service definition with a response serializer that takes EncodedResponse (and still plain objects). */
export function withSharedEncoding(def: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const methods = Object.entries(def).map(([name, method]) => {
    const plain = method.responseSerialize as (value: DeltaResponse) => Buffer;
    const responseSerialize = (value: EncodedResponse | DeltaResponse) =>
      value instanceof EncodedResponse ? serializeResponse(value) : plain(value);
    return [name, { ...method, responseSerialize }];
  });
  return Object.fromEntries(methods) as grpc.ServiceDefinition;
}
