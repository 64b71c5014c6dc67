// docs/support-matrix.md is generated: it must equal what the coverage table renders today.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { renderMatrix } from '../../scripts/coverage-matrix.js';

it('docs/support-matrix.md matches the coverage table (regenerate: npx tsx scripts/support-matrix.ts)', () => {
  expect(readFileSync('docs/support-matrix.md', 'utf8')).toBe(renderMatrix());
});
