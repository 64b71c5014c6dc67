// Every snapshot the golden cases produce passes the proxy runtime's own consistency check: names are
// unique and every reference (listener → bind, route → listeners and backends) resolves.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../src/ir/types.js';
import { checkSnapshot } from '../../src/proxy/snapshot-check.js';
import { parseManifests } from '../../src/controller/local/manifests.js';
import { snapshots, translateAll } from '../../src/translate/state.js';
import { createStore, putObject } from '../../src/translate/store.js';
import { goldenOptions } from './golden-render.js';

const dir = join(import.meta.dirname, 'testdata');
const cases = readdirSync(dir).filter((f) => f.endsWith('.yaml') && !f.endsWith('.out.yaml')).sort();

describe('translated snapshots and the proxy runtime', () => {
  it('pass the runtime snapshot check except for backend kinds the proxy does not serve yet', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const file of cases) {
      const text = readFileSync(join(dir, file), 'utf8');
      const store = createStore();
      for (const { kind, obj } of parseManifests(text, file).objects) putObject(store, kind, obj, file);
      for (const [gw, snap] of snapshots(translateAll(store, goldenOptions(text)))) {
        checked++;
        // The translator's snapshot is a structural superset of the generated type (extra IR fields
        // listed in docs/translate.md), so the runtime check reads it as is.
        for (const p of checkSnapshot(snap as unknown as Snapshot, `${file} ${gw}`)) {
          if (!p.message.includes('is not served by this proxy yet')) problems.push(`${p.source}: ${p.object}: ${p.path}: ${p.message}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(problems).toEqual([]);
  });
});
