// A provider's streamed body read with `data` events rather than `for await`: the async iterator costs a
// promise, a microtask hop and a `read()` per chunk, the largest share of a relayed event's own JS cost.
// Chunks that arrive in one socket read (undici emits them in one turn) are handed over as one, so a
// provider that gets ahead of the proxy costs one client write per read, not one per event.
import type { Readable } from 'node:stream';

/**
 * Calls `each` with the chunks of `body` until it ends, those of one turn joined; a promise from `each`
 * (the client is behind) pauses the body until it settles. Settles as `for await` would: rejects with the
 * body's error, with ERR_STREAM_PREMATURE_CLOSE when it closes before its end, or with what `each` threw or
 * rejected with (the body is then destroyed); when `stop()` is true after a chunk, destroys the body and resolves.
 */
export function eachChunk(
  body: Readable,
  each: (chunk: Buffer) => Promise<void> | undefined,
  stop: () => boolean,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (body.destroyed) return reject(body.errored ?? prematureClose());
    let settled = false;
    let ended = false;
    let writing = false;
    let batch: Buffer[] = [];
    const settle = (err?: unknown): void => {
      if (settled) return;
      settled = true;
      body.off('data', onData);
      if (err === undefined) resolve();
      else reject(err);
    };
    const fail = (err: unknown): void => {
      settle(err);
      body.destroy();
    };
    // After a chunk went out: stop when asked (the rest of the body is not read), else go on or finish.
    const next = (): void => {
      writing = false;
      if (settled) return;
      if (stop()) {
        settle();
        body.destroy();
      } else if (ended) settle();
      else body.resume();
    };
    const flush = (): void => {
      if (settled) return;
      const chunks = batch;
      batch = [];
      let pending: Promise<void> | undefined;
      try {
        pending = each(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      } catch (err) {
        return fail(err);
      }
      if (!pending) return next();
      body.pause();
      pending.then(next, fail);
    };
    const onData = (chunk: Buffer): void => {
      if (batch.push(chunk) > 1) return;
      writing = true;
      queueMicrotask(flush);
    };
    body.on('data', onData);
    // Whichever comes first settles the promise; the later ones are no-ops. The end waits for the last write.
    body.on('end', () => {
      ended = true;
      if (!writing) settle();
    });
    body.on('error', settle);
    body.on('close', () => {
      if (!body.readableEnded) settle(body.errored ?? prematureClose());
    });
  });
}

export function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}
