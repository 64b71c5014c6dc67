// `make deps` skips `npm ci` (which deletes node_modules) only when scripts/deps-current.mjs finds that
// node_modules holds what package-lock.json names.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const script = join(import.meta.dirname, '../../scripts/deps-current.mjs');
const run = promisify(execFile);

async function current(lock: object, installed?: object): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-deps-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ packages: lock }));
  if (installed) {
    mkdirSync(join(dir, 'node_modules'));
    writeFileSync(join(dir, 'node_modules/.package-lock.json'), JSON.stringify({ packages: installed }));
  }
  return run('node', [script], { cwd: dir }).then(
    () => true,
    () => false,
  );
}
const dirs: string[] = [];

describe('scripts/deps-current.mjs', () => {
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const lock = { '': { name: 'gw' }, 'node_modules/a': { version: '1.0.0' }, 'node_modules/b': { version: '2.0.0' } };

  it('says current when every locked package is installed at its version', async () => {
    expect(
      await current(lock, { 'node_modules/a': { version: '1.0.0' }, 'node_modules/b': { version: '2.0.0' } }),
    ).toBe(true);
  });
  it('says stale when a version differs, a package is missing, or nothing was installed', async () => {
    expect(
      await current(lock, { 'node_modules/a': { version: '1.0.1' }, 'node_modules/b': { version: '2.0.0' } }),
    ).toBe(false);
    expect(await current(lock, { 'node_modules/a': { version: '1.0.0' } })).toBe(false);
    expect(await current(lock)).toBe(false);
  });
});
