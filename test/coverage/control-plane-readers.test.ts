// A "control plane" row of the coverage table cannot hide a setting nothing reads (issue 38): each names the
// files that consume the field (deployer, translator, controller or proxy), and each of them exists and names
// the field (its last named path segment, e.g. `spiffe` for `spec.spiffe.*`) in code: a member access, a
// quoted key or a destructured binding, not a word in a comment.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { coverageTables } from '../../src/coverage/index.js';

const root = join(import.meta.dirname, '..', '..');

const rows = Object.entries(coverageTables).flatMap(([kind, table]) =>
  Object.entries(table).flatMap(([path, c]) => ('controlPlane' in c ? [{ kind, path, readers: c.readers }] : [])),
);

/** `spec.ui.tokenSecret.*` → `tokenSecret`; `spec.env[].*` → `env`. */
const fieldName = (path: string): string =>
  path
    .replace(/\.\*$/, '')
    .split('.')
    .map((s) => s.replace(/\[\]$/, ''))
    .filter((s) => s !== '')
    .at(-1) ?? '';

/** The source without comments (a comment naming the field is not a reader). */
const code = (source: string): string => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** Whether code reads `name`: a member access (`.name`, `?.name`), a quoted key, or a destructured binding. */
const readsField = (source: string, name: string): boolean =>
  new RegExp(`\\.${name}\\b|['"\`]${name}['"\`]|[{,]\\s*${name}\\s*[,}:=]`).test(code(source));

describe('control plane rows of the coverage table name their readers', () => {
  it('has control plane rows to check', () => {
    expect(rows.length).toBeGreaterThan(10);
  });

  it.each(rows)('$kind $path is read by the files it names', ({ path, readers }) => {
    expect(readers.length, `${path} names no reader`).toBeGreaterThan(0);
    const name = fieldName(path);
    for (const file of readers) {
      expect(existsSync(join(root, file)), `${path}: ${file} does not exist`).toBe(true);
      expect(readsField(readFileSync(join(root, file), 'utf8'), name), `${file} does not read ${name}`).toBe(true);
    }
  });
});
