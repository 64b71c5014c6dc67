// Every snapshot the golden cases produce passes the proxy runtime's own consistency check: names are
// unique and every reference (listener → bind, route → listeners and backends) resolves.
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/ir/types.js';
import { checkSnapshot } from '../../src/proxy/snapshot-check.js';
import { goldenCaseFiles, goldenCaseSnapshots, goldenSnapshots } from './golden-render.js';

// One test per golden case: each gets the whole timeout, and a failure names its case.
describe('translated snapshots and the proxy runtime', () => {
  for (const file of goldenCaseFiles()) {
    it(`${file} passes the runtime snapshot check except for backend kinds the proxy does not serve yet`, () => {
      const problems: string[] = [];
      for (const { gateway, snapshot } of goldenCaseSnapshots(file)) {
        // The translator's snapshot has the generated type's shape (proto3 JSON form), so the check reads it as is.
        for (const p of checkSnapshot(snapshot as unknown as Snapshot, `${file} ${gateway}`)) {
          if (!p.message.includes('is not served by this proxy yet'))
            problems.push(`${p.source}: ${p.object}: ${p.path}: ${p.message}`);
        }
      }
      expect(problems).toEqual([]);
    });
  }
  // Last: the cases above have translated (and cached) every snapshot by now.
  it('checked more than 40 snapshots', () => {
    expect(goldenSnapshots().length).toBeGreaterThan(40);
  });
});
