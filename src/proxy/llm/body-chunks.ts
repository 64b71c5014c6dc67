// A provider's streamed body read with `data` events rather than `for await`: the async iterator costs a
// promise, a microtask hop and a `read()` per chunk, the largest share of a relayed event's own JS cost.
import type { Readable } from 'node:stream';

/**
 * Calls `each` with every chunk of `body` until it ends; a promise from `each` (the client is behind) pauses
 * the body until it settles. Settles as `for await` would: rejects with the body's error, with
 * ERR_STREAM_PREMATURE_CLOSE when it closes before its end, or with what `each` threw or rejected with (the
 * body is then destroyed); when `stop()` is true after a chunk, destroys the body and resolves.
 */
export function eachChunk(
  body: Readable,
  each: (chunk: Buffer) => Promise<void> | undefined,
  stop: () => boolean,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (body.destroyed) return reject(body.errored ?? prematureClose());
    let settled = false;
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
    // True when the caller asked to stop: the rest of the body is not read.
    const stopped = (): boolean => {
      if (!stop()) return false;
      settle();
      body.destroy();
      return true;
    };
    const onData = (chunk: Buffer): void => {
      let pending: Promise<void> | undefined;
      try {
        pending = each(chunk);
      } catch (err) {
        return fail(err);
      }
      if (!pending) return void stopped();
      body.pause();
      pending.then(() => {
        if (!settled && !stopped()) body.resume();
      }, fail);
    };
    body.on('data', onData);
    // Whichever comes first settles the promise; the later ones are no-ops.
    body.on('end', () => settle());
    body.on('error', settle);
    body.on('close', () => {
      if (!body.readableEnded) settle(body.errored ?? prematureClose());
    });
  });
}

export function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}
