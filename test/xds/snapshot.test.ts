import { describe, expect, it } from 'vitest';
import { resourceVersion, snapshotVersion } from '../../src/xds/protocol.js';
import { diffSnapshot, versionSnapshot } from '../../src/xds/snapshot.js';

const r = (text: string) => ({ type: 't', body: Buffer.from(text) });

describe('snapshot versions and differences', () => {
  it('versions a resource by the sha256 of its body, the same in every process', () => {
    expect(resourceVersion(Buffer.from('hello'))).toBe('2cf24dba5fb0a30e');
    expect(resourceVersion(new Uint8Array(Buffer.from('hello')))).toBe('2cf24dba5fb0a30e');
  });

  it('gives a snapshot the same version whatever the insertion order', () => {
    const a = versionSnapshot(
      new Map([
        ['x', r('1')],
        ['y', r('2')],
      ]),
    );
    const b = versionSnapshot(
      new Map([
        ['y', r('2')],
        ['x', r('1')],
      ]),
    );
    expect(a.systemVersion).toBe(b.systemVersion);
    expect(snapshotVersion(new Map())).toHaveLength(16);
  });

  it('lists new and changed resources and removed names, sorted', () => {
    const snap = versionSnapshot(
      new Map([
        ['b', r('2')],
        ['a', r('1')],
        ['c', r('3')],
      ]),
    );
    const held = new Map([
      ['a', resourceVersion(Buffer.from('1'))],
      ['b', 'old'],
      ['z', 'v'],
    ]);
    const diff = diffSnapshot(held, snap);
    expect(diff.upserts.map((u) => u.name)).toEqual(['b', 'c']);
    expect(diff.removes).toEqual(['z']);
  });

  it('finds nothing to send when the held versions match', () => {
    const snap = versionSnapshot(new Map([['a', r('1')]]));
    expect(diffSnapshot(snap.versions, snap)).toEqual({ upserts: [], removes: [] });
  });
});
