import { describe, expect, it } from 'vitest';
import { xdsServiceDefinition, type DeltaResponse } from '../../src/xds/protocol.js';
import { versionSnapshot } from '../../src/xds/snapshot.js';
import { EncodedResponse, encodeShared, withSharedEncoding } from '../../src/xds/wire.js';

const method = () => xdsServiceDefinition().DeltaResources!;
const plain = (resp: DeltaResponse) => method().responseSerialize(resp);

describe('shared response encoding', () => {
  const snap = versionSnapshot(
    new Map([
      ['a', { type: 'gw.ir.v1.Route', body: Buffer.from('one') }],
      ['b', { type: 'gw.ir.v1.Policy', body: Buffer.alloc(300, 'x') }],
      ['empty', { type: '', body: new Uint8Array(0) }],
      ['ü/name', { type: 't', body: Buffer.from([0, 1, 2]) }],
    ]),
  );
  const upserts = [...snap.resources.values()];

  it('writes the bytes proto-loader writes for the same response', () => {
    const { head, tail } = encodeShared(upserts, ['gone', 'x'.repeat(200)], snap.systemVersion);
    const ours = withSharedEncoding(xdsServiceDefinition()).DeltaResources!.responseSerialize(
      new EncodedResponse(head, tail, '17.3'),
    );
    const theirs = plain({
      resources: upserts,
      removedResources: ['gone', 'x'.repeat(200)],
      nonce: '17.3',
      systemVersionInfo: snap.systemVersion,
    });
    expect(Buffer.compare(ours, theirs)).toBe(0);
  });

  it('decodes to the response the proxy would have received, for an empty one too', () => {
    const { head, tail } = encodeShared([], [], snap.systemVersion);
    const bytes = withSharedEncoding(xdsServiceDefinition()).DeltaResources!.responseSerialize(
      new EncodedResponse(head, tail, '1.1'),
    );
    expect(method().responseDeserialize(bytes)).toEqual({
      resources: [],
      removedResources: [],
      nonce: '1.1',
      systemVersionInfo: snap.systemVersion,
    });
  });

  it('still serializes plain response objects', () => {
    const resp = { resources: upserts, removedResources: [], nonce: 'n', systemVersionInfo: 'v' };
    const bytes = withSharedEncoding(xdsServiceDefinition()).DeltaResources!.responseSerialize(resp);
    expect(Buffer.compare(bytes, plain(resp))).toBe(0);
  });
});
