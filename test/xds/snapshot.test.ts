import { describe, expect, it } from 'vitest';
import { resourceVersion, snapshotVersion } from '../../src/xds/protocol.js';
import { diffSnapshot, linkSnapshots, versionSnapshot } from '../../src/xds/snapshot.js';

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

  it('shares the wire form of an unchanged body across snapshots', () => {
    const same = r('1');
    const a = versionSnapshot(new Map([['x', same]]));
    const b = versionSnapshot(
      new Map([
        ['x', same],
        ['y', r('2')],
      ]),
    );
    expect(b.resources.get('x')).toBe(a.resources.get('x'));
    // The same body under another name is its own resource.
    expect(versionSnapshot(new Map([['z', same]])).resources.get('z')!.name).toBe('z');
  });

  it('links a snapshot to the previous one by their difference, keeping only the latest link', () => {
    const a = versionSnapshot(
      new Map([
        ['x', r('1')],
        ['y', r('2')],
      ]),
    );
    const b = linkSnapshots(
      a,
      versionSnapshot(
        new Map([
          ['x', r('1')],
          ['z', r('3')],
        ]),
      ),
    );
    expect(b.delta!.from).toBe(a);
    expect(b.delta!.names).toEqual(['z', 'y']);
    expect(b.delta!.diff).toEqual(diffSnapshot(a.versions, b));
    const c = linkSnapshots(b, versionSnapshot(new Map([['x', r('4')]])));
    expect(b.delta).toBeUndefined();
    expect(c.delta!.from).toBe(b);
  });
});
