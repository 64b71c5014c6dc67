// The AWS event-stream decoder against frames built by the Bedrock fake's encoder (CRCs from node:zlib).
import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { EventStreamDecoder, EventStreamError, crc32 } from '../../../src/proxy/llm/event-stream.js';
import { frame } from './fake-bedrock.js';

const a = frame({ ':event-type': 'contentBlockDelta', ':message-type': 'event' }, { delta: { text: 'Hé' } });
const b = frame({ ':event-type': 'messageStop', ':message-type': 'event' }, { stopReason: 'end_turn' });

describe('event-stream decoder', () => {
  it('computes the CRC-32 zlib computes', () => {
    for (const buf of [Buffer.alloc(0), Buffer.from('123456789'), a]) expect(crc32(buf)).toBe(zlibCrc32(buf));
  });

  it('decodes the same messages however the bytes are split', () => {
    const bytes = Buffer.concat([a, b]);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const d = new EventStreamDecoder();
      const msgs = [...d.feed(bytes.subarray(0, cut)), ...d.feed(bytes.subarray(cut))];
      expect(msgs.map((m) => [m.headers[':event-type'], JSON.parse(m.payload.toString()) as unknown])).toEqual([
        ['contentBlockDelta', { delta: { text: 'Hé' } }],
        ['messageStop', { stopReason: 'end_turn' }],
      ]);
      expect(d.buffered).toBe(0);
    }
  });

  it('keeps a partial message until the rest arrives', () => {
    const d = new EventStreamDecoder();
    expect(d.feed(a.subarray(0, a.length - 1))).toEqual([]);
    expect(d.buffered).toBe(a.length - 1);
  });

  it('refuses a frame whose message or prelude checksum is wrong, or whose length is impossible', () => {
    expect(() => new EventStreamDecoder().feed(frame({ ':event-type': 'x' }, {}, true))).toThrow(EventStreamError);
    const badPrelude = Buffer.from(a);
    badPrelude.writeUInt32BE(badPrelude.readUInt32BE(8) ^ 1, 8);
    expect(() => new EventStreamDecoder().feed(badPrelude)).toThrow(/prelude checksum/);
    const tiny = Buffer.alloc(12);
    tiny.writeUInt32BE(8, 0);
    tiny.writeUInt32BE(zlibCrc32(tiny.subarray(0, 8)), 8);
    expect(() => new EventStreamDecoder().feed(tiny)).toThrow(/impossible message length/);
  });
});
