// Sums vitest JSON reports into the one closing line CI reads: `tests: N passed, N failed, N skipped`.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';

/** An ANSI colour sequence (ESC [ … m), as vitest writes them into failure messages. */
const COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** The first line of a failure message, without colour codes, cut to a readable length. */
function firstLine(messages) {
  const text = (messages ?? []).find((m) => typeof m === 'string' && m.length > 0) ?? 'no message';
  return text.replace(COLOUR, '').split('\n')[0].slice(0, 300);
}

const dir = process.argv[2] ?? '.cache/test-reports';
let passed = 0,
  failed = 0,
  skipped = 0;
/** One line per failed test or broken file, printed just above the closing line so a log's tail names them. */
const failures = [];
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
    for (const file of r.testResults ?? []) {
      const where = `${f.replace(/\.json$/, '')}: ${relative(process.cwd(), file.name ?? '?')}`;
      const tests = (file.assertionResults ?? []).filter((a) => a.status === 'failed');
      for (const t of tests) failures.push(`${where} > ${t.fullName ?? t.title}: ${firstLine(t.failureMessages)}`);
      if (file.status === 'failed' && tests.length === 0) failures.push(`${where}: ${firstLine([file.message])}`);
    }
    skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  }
}
if (failures.length > 0) console.log(['failed:', ...failures.map((line) => `  ${line}`)].join('\n'));
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (passed === 0) {
  console.error('no test ran');
  process.exitCode = 1;
}
