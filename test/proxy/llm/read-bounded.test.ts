// readBounded, the reader of every buffered provider answer: the whole body, 'too_large' past the limit,
// the stream's error, a premature close (pinned so that a faster reader keeps the same outcomes).
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBounded } from '../../../src/proxy/llm/llm-response.js';

describe('readBounded', () => {
  it('returns the whole body, across chunks', async () => {
    const body = Readable.from([Buffer.from('{"a":'), Buffer.from('1}')]);
    expect((await readBounded(body, 100)).toString()).toBe('{"a":1}');
  });

  it('answers too_large past the limit and destroys the stream', async () => {
    const body = Readable.from([Buffer.alloc(60), Buffer.alloc(60)]);
    expect(await readBounded(body, 100)).toBe('too_large');
    expect(body.destroyed).toBe(true);
  });

  it("rejects with the stream's error, and on a close before the end", async () => {
    const failing = new PassThrough();
    const read = readBounded(failing, 100);
    failing.write('x');
    failing.destroy(Object.assign(new Error('socket hang up'), { code: 'UND_ERR_SOCKET' }));
    await expect(read).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    const cut = new PassThrough();
    const cutRead = readBounded(cut, 100);
    cut.destroy();
    await expect(cutRead).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
    await expect(readBounded(cut, 100)).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });
});
