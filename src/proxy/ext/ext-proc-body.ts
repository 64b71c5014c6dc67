// A body through the processor, the same way in both directions (request: the client's body on its way to
// the backend; response: the backend's body on its way to the client), per BodySendMode:
// - Buffered: the whole body (at most `limit` bytes, larger is refused) in one message; the answer's body
//   mutation is the body that continues.
// - BufferedPartial: the first `partialBytes` (at most `limit`; all of it when shorter) in one message,
//   end_of_stream saying whether that was all; the answer replaces that part, the rest follows unprocessed.
// - FullDuplexStreamed: each chunk is sent as it arrives and end_of_stream closes the body; what continues
//   is what the processor answers in streamed_response chunks until it says end_of_stream.
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { BodyMutation, HeaderMutation, Phase } from './ext-proc-client.js';
import type { Answer, ExtProcSession } from './ext-proc-session.js';

type Headers = Record<string, string | string[] | number | undefined>;

/** How much of a body BufferedPartial sends (the seed gives no size; Envoy's is its buffer limit). */
export const partialBytes = 64 * 1024;

/** Where a body's bytes come from: a client request or a backend answer. */
export type BodySource = Readable;

/** What continues after the body phase: bytes of known length, or a stream (length unknown). */
export type Continued = { kind: 'bytes'; body: Buffer } | { kind: 'stream'; body: Readable };

export type BodyOutcome =
  | Continued
  | Exclude<Answer, { kind: 'continue' }>
  | { kind: 'too_large' }
  /** The client or backend went away before its body was read. */
  | { kind: 'gone' };

/**
 * Up to `limit` bytes of `src`: `ended` when that was all of it. When not, `src` is left paused with the
 * bytes past the limit in `rest`, to be sent on unread.
 */
export function readUpTo(
  src: Readable,
  limit: number,
): Promise<{ head: Buffer; rest: Buffer; ended: boolean } | 'gone'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (v: { head: Buffer; rest: Buffer; ended: boolean } | 'gone'): void => {
      src.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onClose);
      resolve(v);
    };
    const onData = (c: Buffer): void => {
      if (size + c.length <= limit) {
        chunks.push(c);
        size += c.length;
        return;
      }
      src.pause();
      const fits = limit - size;
      chunks.push(c.subarray(0, fits));
      done({ head: Buffer.concat(chunks), rest: c.subarray(fits), ended: false });
    };
    const onEnd = (): void => done({ head: Buffer.concat(chunks), rest: Buffer.alloc(0), ended: true });
    const onGone = (): void => done('gone');
    const onClose = (): void => {
      if (!src.readableEnded) done('gone');
    };
    src.on('data', onData).once('end', onEnd).once('error', onGone).once('close', onClose);
  });
}

/** The body a mutation leaves: replaced, cleared, or (none) the one sent. */
export function mutatedBody(sent: Buffer, m: BodyMutation | null | undefined): Buffer {
  if (m?.mutation === 'body') return m.body ?? Buffer.alloc(0);
  if (m?.mutation === 'clearBody' && m.clearBody) return Buffer.alloc(0);
  return sent;
}

/** `head` then whatever `src` still has, unprocessed, as one stream that follows the reader's pace. */
export function followedBy(head: Buffer, rest: Buffer, src: Readable): Readable {
  const out = new Readable({ read: () => src.resume() });
  if (head.length) out.push(head);
  if (rest.length) out.push(rest);
  // The chunk that passed the limit may have been the last: the source can have ended already.
  if (src.readableEnded) {
    out.push(null);
    return out;
  }
  src.on('data', (c: Buffer) => {
    if (!out.push(c)) src.pause();
  });
  src.once('end', () => out.push(null));
  src.once('error', (err) => out.destroy(err));
  src.resume();
  return out;
}

export interface BodyPhase {
  session: ExtProcSession;
  res: ServerResponse;
  phase: Extract<Phase, 'requestBody' | 'responseBody'>;
  /** Headers not yet sent on: a body answer's header mutation applies to them (Buffered modes). */
  headers: Headers;
  apply: (headers: Headers, m: HeaderMutation | null | undefined) => void;
  limit: number;
}

/** Buffered and BufferedPartial: one message, one answer. */
export async function bufferedBody(src: BodySource, p: BodyPhase, partial: boolean): Promise<BodyOutcome> {
  const got = await readUpTo(src, partial ? Math.min(p.limit, partialBytes) : p.limit);
  if (got === 'gone') return { kind: 'gone' };
  if (!got.ended && !partial) {
    src.resume();
    return { kind: 'too_large' };
  }
  const answer = await p.session.ask(p.res, p.phase, { body: got.head, endOfStream: got.ended });
  if (answer.kind === 'unprocessed')
    return got.ended
      ? { kind: 'bytes', body: got.head }
      : { kind: 'stream', body: followedBy(got.head, got.rest, src) };
  if (answer.kind !== 'continue') {
    if (!got.ended) src.destroy();
    return answer;
  }
  p.apply(p.headers, answer.common?.headerMutation);
  const body = mutatedBody(got.head, answer.common?.bodyMutation);
  return got.ended ? { kind: 'bytes', body } : { kind: 'stream', body: followedBy(body, got.rest, src) };
}

/**
 * FullDuplexStreamed: chunks go to the processor as they arrive; the stream returned carries its
 * streamed_response chunks. A failed call from here on destroys that stream (the exchange ends).
 */
export function streamedBody(src: BodySource, p: BodyPhase): Readable {
  const out = new Readable({ read: () => src.resume() });
  p.session.streaming = true;
  src.on('data', (c: Buffer) => p.session.send(p.phase, { body: c, endOfStream: false }));
  src.once('end', () => p.session.send(p.phase, { body: Buffer.alloc(0), endOfStream: true }));
  src.once('error', (err) => out.destroy(err));
  void (async () => {
    for (;;) {
      const answer = await p.session.answer(p.res, p.phase);
      if (answer.kind !== 'continue') {
        src.destroy();
        out.destroy(new Error('the external processor failed while the body was streaming'));
        return;
      }
      const m = answer.common?.bodyMutation;
      const chunk = m?.mutation === 'streamedResponse' ? m.streamedResponse : undefined;
      if (chunk?.body.length) out.push(chunk.body);
      if (chunk?.endOfStream) {
        out.push(null);
        return;
      }
    }
  })();
  return out;
}
