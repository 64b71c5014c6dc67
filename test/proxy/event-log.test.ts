import { describe, expect, it } from 'vitest';
import { EventLog, parseEventId } from '../../src/proxy/sse-stream.js';

describe('the replay buffer of a session', () => {
  it('replays only the events of the same stream after the given one', () => {
    const log = new EventLog({ events: 10, bytes: 10_000 });
    const a = log.newStream();
    const b = log.newStream();
    const first = parseEventId(/^id: (.+)$/m.exec(log.append(a, '"a1"'))?.[1] ?? '');
    log.append(b, '"b1"');
    log.append(a, '"a2"');
    expect(first).toEqual({ stream: a, seq: 1 });
    expect(log.after(a, 1)).toEqual({ texts: [`id: ${a}-3\nevent: message\ndata: "a2"\n\n`], complete: true });
  });

  it('keeps at most the configured number of events and says when a gap cannot be filled whole', () => {
    const log = new EventLog({ events: 3, bytes: 10_000 });
    const s = log.newStream();
    for (let i = 0; i < 5; i++) log.append(s, String(i));
    expect(log.after(s, 1).complete).toBe(false);
    expect(log.after(s, 2)).toMatchObject({ complete: true });
    expect(log.after(s, 2).texts).toHaveLength(3);
  });

  it('evicts by size but always keeps the newest event', () => {
    const log = new EventLog({ events: 100, bytes: 50 });
    const s = log.newStream();
    log.append(s, 'x'.repeat(40));
    log.append(s, 'y'.repeat(80));
    expect(log.after(s, 0)).toEqual({ texts: [expect.stringContaining('yyy')], complete: false });
  });

  it('gives an unkept event an id without recording it', () => {
    const log = new EventLog({ events: 10, bytes: 10_000 });
    const s = log.newStream();
    expect(log.append(s, '"lone"', false)).toBe(`id: ${s}-1\nevent: message\ndata: "lone"\n\n`);
    expect(log.issued(1)).toBe(true);
    expect(log.after(s, 0)).toEqual({ texts: [], complete: true });
  });

  it('rejects ids that are not <stream>-<seq>', () => {
    expect(parseEventId('1-2')).toEqual({ stream: 1, seq: 2 });
    expect(parseEventId('abc')).toBeUndefined();
    expect(parseEventId('1-2-3')).toBeUndefined();
  });
});
