// GwPolicy `traffic.buffer.response`: the backend's answer is held whole (at most `maxBytes`) before the
// client sees any of it. Past the limit, FailClosed answers 502 response_too_large (seed 001 "Errors");
// FailOpen passes the answer on unbuffered.
import type { Readable } from 'node:stream';
import type { BufferPlan } from './traffic-policy.js';

export type BufferedBody = { over: false; body: Buffer } | { over: true; rest: AsyncIterable<Buffer> };

/** Reads `body` whole, or until it passes the limit: then `rest` yields what was read and what follows. */
export async function bufferResponse(body: Readable, plan: BufferPlan, contentLength: number): Promise<BufferedBody> {
  const it = (body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  let size = 0;
  if (contentLength <= plan.maxBytes) {
    for (let r = await it.next(); !r.done; r = await it.next()) {
      chunks.push(r.value);
      size += r.value.length;
      if (size > plan.maxBytes) break;
    }
    if (size <= plan.maxBytes) return { over: false, body: Buffer.concat(chunks) };
  }
  async function* rest(): AsyncGenerator<Buffer> {
    yield* chunks;
    for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
  }
  return { over: true, rest: rest() };
}
