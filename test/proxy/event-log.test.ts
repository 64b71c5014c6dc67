import { describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { EventLog, Primer, SseStream, parseEventId } from '../../src/proxy/mcp/sse-stream.js';

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

describe('priming call streams', () => {
  it('primes only the streams still unanswered after the delay', () => {
    let now = 1_000;
    const primer = new Primer(100, () => now);
    const log = new EventLog();
    const written: string[] = [];
    const res = {
      headersSent: true,
      writableEnded: false,
      destroyed: false,
      write: (t: string) => written.push(t),
    } as unknown as ServerResponse;
    const slow = new SseStream(log.newStream(), log, 's');
    const quick = new SseStream(log.newStream(), log, 's');
    slow.attach(res);
    quick.attach(res);
    primer.add(slow);
    primer.add(quick);
    now += 50;
    primer.tick();
    expect(written).toEqual([]);
    primer.delete(quick); // answered in time
    now += 60;
    primer.tick();
    expect(written).toEqual([`id: ${slow.no}-1\ndata: \n\n`]);
    primer.stop();
  });
});
