// Golden cases: testdata/<case>.yaml (objects after testdata/_defaults.yaml's; an optional `# options:` line) →
// testdata/<case>.out.yaml (snapshots, statuses, problems). REFRESH_GOLDEN=1 rewrites the expectations.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GOLDEN_DIR as dir, goldenCaseFiles, renderGolden } from './golden-render.js';

const cases = goldenCaseFiles();

describe('translation golden cases', () => {
  it('has at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });
  for (const file of cases) {
    const name = file.slice(0, -'.yaml'.length);
    it(`translates ${name} as recorded`, () => {
      const got = renderGolden(readFileSync(join(dir, file), 'utf8'), file);
      const outFile = join(dir, `${name}.out.yaml`);
      if (process.env.REFRESH_GOLDEN === '1' || !existsSync(outFile)) {
        writeFileSync(outFile, got);
        if (process.env.REFRESH_GOLDEN !== '1')
          throw new Error(`${name}.out.yaml was missing and has been written; review it and run again`);
      }
      expect(got).toBe(readFileSync(outFile, 'utf8'));
    });
  }
});
