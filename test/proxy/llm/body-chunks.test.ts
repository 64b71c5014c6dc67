// eachChunk, the data-event reader a relayed stream uses in place of `for await`: it must keep the
// iterator's contract (backpressure, stopping, errors, premature close), or a slow client, a client that
// leaves or a provider that breaks off would be handled differently from before.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { eachChunk } from '../../../src/proxy/llm/body-chunks.js';

describe('eachChunk', () => {
  it('hands over every chunk in order and holds the body while a write is pending', async () => {
    const body = new PassThrough();
    const seen: string[] = [];
    let release: () => void = () => undefined;
    const done = eachChunk(
      body,
      (c) => {
        seen.push(c.toString());
        if (seen.length > 1) return undefined;
        return new Promise<void>((r) => (release = r));
      },
      () => false,
    );
    body.write('a');
    await new Promise((r) => setImmediate(r));
    body.write('b');
    body.end();
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['a']);
    expect(body.isPaused()).toBe(true);
    release();
    await done;
    expect(seen).toEqual(['a', 'b']);
  });

  it('hands the chunks that arrive in one turn over as one, and ends after the last of them', async () => {
    const body = new PassThrough();
    const seen: string[] = [];
    const done = eachChunk(
      body,
      (c) => {
        seen.push(c.toString());
        return undefined;
      },
      () => false,
    );
    body.write('data: 1\n\n');
    body.write('data: 2\n\n');
    await new Promise((r) => setImmediate(r));
    body.end('data: [DONE]\n\n');
    await done;
    expect(seen).toEqual(['data: 1\n\ndata: 2\n\n', 'data: [DONE]\n\n']);
  });

  it('destroys the body and resolves once the caller stops (the client left)', async () => {
    const body = new PassThrough();
    let stop = false;
    const done = eachChunk(
      body,
      () => {
        stop = true;
        return undefined;
      },
      () => stop,
    );
    body.write('a');
    await done;
    expect(body.destroyed).toBe(true);
  });

  it('rejects with the error the body breaks off with, and as a premature close when it closes early', async () => {
    const failing = new PassThrough();
    const failed = eachChunk(
      failing,
      () => undefined,
      () => false,
    );
    failing.destroy(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
    await expect(failed).rejects.toMatchObject({ code: 'ECONNRESET' });
    const cut = new PassThrough();
    const closed = eachChunk(
      cut,
      () => undefined,
      () => false,
    );
    cut.destroy();
    await expect(closed).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('destroys the body and rejects when handing a chunk over throws or its write fails', async () => {
    const body = new PassThrough();
    const thrown = eachChunk(
      body,
      () => {
        throw new Error('bad event');
      },
      () => false,
    );
    body.write('a');
    await expect(thrown).rejects.toThrow('bad event');
    expect(body.destroyed).toBe(true);
    const other = new PassThrough();
    const rejected = eachChunk(
      other,
      () => Promise.reject(new Error('write failed')),
      () => false,
    );
    other.write('a');
    await expect(rejected).rejects.toThrow('write failed');
    expect(other.destroyed).toBe(true);
  });
});
