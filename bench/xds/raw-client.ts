// A bench-only xDS proxy that costs as little as the protocol allows, so 1,000 of them on two cores
// leave the server to be measured: one HTTP/2 session and one gRPC stream each (node:http2, no
// grpc-js), the subscribe encoded by the real serializer, and each response answered with an ACK
// built from its nonce alone (the one field it reads). Not a proxy: it applies nothing.
import http2 from 'node:http2';
import { METHOD_NAME, SERVICE_NAME, xdsServiceDefinition } from '../../src/xds/protocol.js';

export interface RawClient {
  readonly ready: boolean;
  close(): void;
}

/** A gRPC message: uncompressed flag and big-endian length before the bytes. */
function frame(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

function readVarint(buf: Buffer, at: number): [number, number] {
  let value = 0;
  let shift = 1;
  for (;;) {
    const b = buf[at++]!;
    value += (b & 0x7f) * shift;
    if (b < 0x80) return [value, at];
    shift *= 128;
  }
}

/** Field 3 (nonce) of a DeltaResponse, skipping the others; every field of it is length-delimited. */
function nonceOf(msg: Buffer): Buffer {
  let at = 0;
  while (at < msg.length) {
    const [tag, afterTag] = readVarint(msg, at);
    const [len, start] = readVarint(msg, afterTag);
    if (tag >>> 3 === 3) return msg.subarray(start, start + len);
    at = start + len;
  }
  return Buffer.alloc(0);
}

/** DeltaRequest{response_nonce} (field 3), no errors: an ACK. */
function ack(nonce: Buffer): Buffer {
  return frame(Buffer.concat([Buffer.from([0x1a, nonce.length]), nonce]));
}

export function createRawClient(port: number, pod: string): RawClient {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  session.on('error', () => undefined);
  const stream = session.request({
    ':method': 'POST',
    ':path': `/${SERVICE_NAME}/${METHOD_NAME}`,
    'content-type': 'application/grpc',
    te: 'trailers',
  });
  stream.on('error', () => undefined);
  const subscribe = xdsServiceDefinition()[METHOD_NAME]!.requestSerialize({
    node: { gatewayNamespace: 'bench', gatewayName: 'gw', podName: pod, buildVersion: '' },
    initialResourceVersions: {},
  });
  stream.write(frame(subscribe));
  const client = { ready: false, close: () => session.destroy() };
  let pending: Buffer = Buffer.alloc(0);
  stream.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 5) {
      const len = pending.readUInt32BE(1);
      if (pending.length < 5 + len) break;
      const nonce = nonceOf(pending.subarray(5, 5 + len));
      // Nonces are short (`<stream>.<seq>`), so one length byte holds them.
      stream.write(ack(nonce));
      client.ready = true;
      pending = pending.subarray(5 + len);
    }
  });
  return client;
}
