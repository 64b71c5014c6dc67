// What the translator produces must survive the proto encoding the xDS stream uses: a field the
// translator sets but proto/ does not declare would silently vanish on the way to the proxy.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SnapshotInput } from '../../src/ir/types.js';
import { decodeSnapshot, encodeSnapshot, normalizeSnapshot } from '../../src/ir/load.js';
import { parseManifests } from '../../src/controller/local/manifests.js';
import { snapshots, translateAll } from '../../src/translate/state.js';
import { createStore, putObject } from '../../src/translate/store.js';
import { goldenOptions } from './golden-render.js';

const dir = join(import.meta.dirname, 'testdata');
const cases = readdirSync(dir).filter((f) => f.endsWith('.yaml') && !f.endsWith('.out.yaml')).sort();

/** Drops empty values so "unset" and "default" compare equal, as proto3 makes them. */
function prune(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(prune);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const p = prune(x);
      const empty = p === null || p === undefined || p === '' || p === 0 || p === false
        || (Array.isArray(p) && p.length === 0) || (typeof p === 'object' && p !== null && Object.keys(p).length === 0);
      if (!empty) out[k] = p;
    }
    return out;
  }
  return v;
}

/** Leaf paths of `expected` that `actual` lacks or holds with another value (decoding may add oneof tags). */
function lost(expected: unknown, actual: unknown, path = ''): string[] {
  if (expected && typeof expected === 'object') {
    if (!actual || typeof actual !== 'object') return [path];
    return Object.entries(expected).flatMap(([k, v]) => lost(v, (actual as Record<string, unknown>)[k], `${path}/${k}`));
  }
  return expected === actual ? [] : [`${path}: ${JSON.stringify(expected)} became ${JSON.stringify(actual)}`];
}

describe('translated snapshots over the wire', () => {
  it('keep every field through proto encoding and decoding', () => {
    let checked = 0;
    for (const file of cases) {
      const text = readFileSync(join(dir, file), 'utf8');
      const store = createStore();
      for (const { kind, obj } of parseManifests(text, file).objects) putObject(store, kind, obj, file);
      for (const [gw, snap] of snapshots(translateAll(store, goldenOptions(text)))) {
        checked++;
        const input = snap as unknown as SnapshotInput;
        const decoded = decodeSnapshot(encodeSnapshot(input));
        expect(prune(decoded), `${file} ${gw}`).toEqual(prune(normalizeSnapshot(input)));
        expect(lost(prune(snap), prune(decoded)), `${file} ${gw}: translator fields missing from proto/`).toEqual([]);
      }
    }
    expect(checked).toBeGreaterThan(40);
  });
});
