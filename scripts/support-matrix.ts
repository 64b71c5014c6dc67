// Writes docs/support-matrix.md from the coverage table (issue 14); test/translate/support-matrix.test.ts
// fails when the committed file is stale. Run: `npx tsx scripts/support-matrix.ts`.
import { writeFileSync } from 'node:fs';
import { renderMatrix } from './coverage-matrix.js';

writeFileSync('docs/support-matrix.md', renderMatrix());
console.log('wrote docs/support-matrix.md');
