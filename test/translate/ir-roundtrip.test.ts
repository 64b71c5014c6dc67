// What the translator produces must survive the proto encoding the xDS stream uses: a field the
// translator sets but proto/ does not declare would silently vanish on the way to the proxy.
import { describe, expect, it } from 'vitest';
import type { SnapshotInput } from '../../src/ir/types.js';
import { decodeSnapshot, encodeSnapshot, normalizeSnapshot } from '../../src/ir/load.js';
import { goldenCaseFiles, goldenCaseSnapshots, goldenSnapshots } from './golden-render.js';

/** Drops empty values so "unset" and "default" compare equal, as proto3 makes them. */
function prune(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(prune);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const p = prune(x);
      const empty =
        p === null ||
        p === undefined ||
        p === '' ||
        p === 0 ||
        p === false ||
        (Array.isArray(p) && p.length === 0) ||
        (typeof p === 'object' && p !== null && Object.keys(p).length === 0);
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
    return Object.entries(expected).flatMap(([k, v]) =>
      lost(v, (actual as Record<string, unknown>)[k], `${path}/${k}`),
    );
  }
  return expected === actual ? [] : [`${path}: ${JSON.stringify(expected)} became ${JSON.stringify(actual)}`];
}

// One test per golden case: each gets the whole timeout, and a failure names its case.
describe('translated snapshots over the wire', () => {
  for (const file of goldenCaseFiles()) {
    it(`keep every field of ${file} through proto encoding and decoding`, () => {
      for (const { gateway, snapshot } of goldenCaseSnapshots(file)) {
        const input = snapshot as unknown as SnapshotInput;
        const decoded = decodeSnapshot(encodeSnapshot(input));
        expect(prune(decoded), `${file} ${gateway}`).toEqual(prune(normalizeSnapshot(input)));
        expect(
          lost(prune(snapshot), prune(decoded)),
          `${file} ${gateway}: translator fields missing from proto/`,
        ).toEqual([]);
      }
    });
  }
  // Last: the cases above have translated (and cached) every snapshot by now.
  it('checked more than 40 snapshots', () => {
    expect(goldenSnapshots().length).toBeGreaterThan(40);
  });
});
