// Every snapshot the golden cases produce passes the proxy runtime's own consistency check: names are
// unique and every reference (listener → bind, route → listeners and backends) resolves.
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/ir/types.js';
import { checkSnapshot } from '../../src/proxy/snapshot-check.js';
import { goldenSnapshots } from './golden-render.js';

describe('translated snapshots and the proxy runtime', () => {
  it('pass the runtime snapshot check except for backend kinds the proxy does not serve yet', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const { file, gateway, snapshot } of goldenSnapshots()) {
      checked++;
      // The translator's snapshot has the generated type's shape (proto3 JSON form), so the check reads it as is.
      for (const p of checkSnapshot(snapshot as unknown as Snapshot, `${file} ${gateway}`)) {
        if (!p.message.includes('is not served by this proxy yet'))
          problems.push(`${p.source}: ${p.object}: ${p.path}: ${p.message}`);
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(problems).toEqual([]);
  });
});
