// Sums vitest JSON reports into the one closing line CI reads: `tests: N passed, N failed, N skipped`.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? '.cache/test-reports';
let passed = 0,
  failed = 0,
  skipped = 0;
if (existsSync(dir)) {
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    const r = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    passed += r.numPassedTests ?? 0;
    // Failed tests, plus files that failed without a failing test (an import or hook error); a file
    // whose tests failed is not counted again.
    const brokenFiles = (r.testResults ?? []).filter(
      (f) => f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed'),
    ).length;
    failed += (r.numFailedTests ?? 0) + brokenFiles;
    skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  }
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (passed === 0) {
  console.error('no test ran');
  process.exitCode = 1;
}
