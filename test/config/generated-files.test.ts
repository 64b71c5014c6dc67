import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateIrTypes, defaultOutDir, indexFile, renderIrIndex } from '../../src/ir/generate.js';
import { renderConfigSchema, schemaFile } from '../../scripts/gen-config-schema.js';
import { tempDirs } from '../support/temp-dir.js';

const tempDir = tempDirs();

function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else out[path.relative(dir, full)] = readFileSync(full, 'utf8');
    }
  };
  walk(dir);
  return out;
}

describe('generated files', () => {
  it('schema/config.json matches the TypeBox source (run scripts/gen-config-schema.ts)', () => {
    expect(readFileSync(schemaFile, 'utf8')).toBe(renderConfigSchema());
  });

  it('src/ir/gen matches a fresh generation from proto/ (run src/ir/generate.ts)', () => {
    const out = tempDir('gw-ir-gen-');
    generateIrTypes(out);
    expect(tree(out)).toEqual(tree(defaultOutDir));
  });

  it('src/ir/types.ts re-exports every generated IR type (run src/ir/generate.ts)', () => {
    expect(readFileSync(indexFile, 'utf8')).toBe(renderIrIndex());
  });
});
