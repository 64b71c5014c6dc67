// The AWS event-stream binary framing (`application/vnd.amazon.eventstream`), as Bedrock's ConverseStream
// answers: each message is a prelude (total length, headers length, prelude CRC32), headers, a payload
// and a CRC32 of everything before it. Decoded incrementally: feed bytes as they arrive.

export interface EventMessage {
  headers: Record<string, string | number | boolean | Buffer>;
  payload: Buffer;
}

const PRELUDE = 12;
const MIN_MESSAGE = PRELUDE + 4;
/** A message larger than this is refused: the framing allows 16 MiB; Bedrock's events are far smaller. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (IEEE 802.3, as zlib computes it). */
export function crc32(buf: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of buf) c = (TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export class EventStreamError extends Error {}

function headersOf(buf: Buffer): EventMessage['headers'] {
  const out: EventMessage['headers'] = {};
  let i = 0;
  const need = (n: number): void => {
    if (i + n > buf.length) throw new EventStreamError('a header runs past the headers section');
  };
  while (i < buf.length) {
    need(1);
    const nameLen = buf.readUInt8(i);
    i += 1;
    need(nameLen + 1);
    const name = buf.toString('utf8', i, i + nameLen);
    i += nameLen;
    const type = buf.readUInt8(i);
    i += 1;
    switch (type) {
      case 0:
        out[name] = true;
        break;
      case 1:
        out[name] = false;
        break;
      case 2:
        need(1);
        out[name] = buf.readInt8(i);
        i += 1;
        break;
      case 3:
        need(2);
        out[name] = buf.readInt16BE(i);
        i += 2;
        break;
      case 4:
        need(4);
        out[name] = buf.readInt32BE(i);
        i += 4;
        break;
      case 5:
        need(8);
        out[name] = Number(buf.readBigInt64BE(i));
        i += 8;
        break;
      case 6:
      case 7: {
        need(2);
        const len = buf.readUInt16BE(i);
        i += 2;
        need(len);
        out[name] = type === 7 ? buf.toString('utf8', i, i + len) : Buffer.from(buf.subarray(i, i + len));
        i += len;
        break;
      }
      case 8:
        need(8);
        out[name] = Number(buf.readBigInt64BE(i));
        i += 8;
        break;
      case 9:
        need(16);
        out[name] = Buffer.from(buf.subarray(i, i + 16));
        i += 16;
        break;
      default:
        throw new EventStreamError(`unknown header value type ${type}`);
    }
  }
  return out;
}

/** Splits a byte stream into messages; throws EventStreamError on a corrupt frame (the stream is then unusable). */
export class EventStreamDecoder {
  private pending: Buffer = Buffer.alloc(0);

  /** The complete messages the bytes so far hold; a partial one waits for more. */
  feed(chunk: Buffer): EventMessage[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const out: EventMessage[] = [];
    while (this.pending.length >= PRELUDE) {
      const total = this.pending.readUInt32BE(0),
        headersLen = this.pending.readUInt32BE(4);
      if (crc32(this.pending.subarray(0, 8)) !== this.pending.readUInt32BE(8))
        throw new EventStreamError('prelude checksum mismatch');
      if (total < MIN_MESSAGE || total > MAX_MESSAGE_BYTES || headersLen > total - MIN_MESSAGE)
        throw new EventStreamError(`impossible message length ${total}`);
      if (this.pending.length < total) break;
      const msg = this.pending.subarray(0, total);
      if (crc32(msg.subarray(0, total - 4)) !== msg.readUInt32BE(total - 4))
        throw new EventStreamError('message checksum mismatch');
      out.push({
        headers: headersOf(msg.subarray(PRELUDE, PRELUDE + headersLen)),
        payload: Buffer.from(msg.subarray(PRELUDE + headersLen, total - 4)),
      });
      this.pending = this.pending.subarray(total);
    }
    return out;
  }

  /** Bytes of a message not yet complete (a stream that ends here was cut). */
  get buffered(): number {
    return this.pending.length;
  }
}
