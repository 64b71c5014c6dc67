// A module loaded on first use (src/proxy/lazy/once.ts): one import however many callers, and a failed
// import is tried again by the next caller rather than failing every later apply of the process.
import { describe, expect, it } from 'vitest';
import { lazyModule } from '../../src/proxy/lazy/once.js';

describe('lazyModule', () => {
  it('imports once for concurrent and later callers, and answers loaded() once in', async () => {
    let imports = 0;
    const lazy = lazyModule(async () => ({ n: ++imports }));
    expect(lazy.loaded()).toBeUndefined();
    const [a, b] = await Promise.all([lazy.load(), lazy.load()]);
    expect(a).toBe(b);
    expect(await lazy.load()).toBe(a);
    expect(lazy.loaded()).toBe(a);
    expect(imports).toBe(1);
  });

  it('tries a failed import again on the next call', async () => {
    let attempts = 0;
    const lazy = lazyModule(async () => {
      if (++attempts === 1) throw new Error('ENOENT: module file missing');
      return { ok: true };
    });
    await expect(lazy.load()).rejects.toThrow('ENOENT');
    expect(lazy.loaded()).toBeUndefined();
    expect(await lazy.load()).toEqual({ ok: true });
    expect(attempts).toBe(2);
  });
});
