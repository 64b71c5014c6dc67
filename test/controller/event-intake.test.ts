// Watch events are handled in arrival order, in slices that let other work run in between, and one
// failing event does not stop the others.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { EventIntake } from '../../src/controller/event-intake.js';

describe('event intake', () => {
  it('handles a chunk in order after it is queued, lets other work run between slices and resumes when more arrive', async () => {
    const seen: string[] = [];
    const intake = new EventIntake<number>({
      handle: (n) => {
        if (n === 2) throw new Error('bad event');
        seen.push(`event ${n}`);
      },
      log: pino({ level: 'silent' }),
      // Every event is a slice of its own.
      sliceMs: 0,
    });
    for (let n = 0; n < 5; n++) intake.push(n);
    // Nothing is handled while the chunk is still being read.
    expect(seen).toEqual([]);
    setImmediate(() => seen.push('other work'));
    await intake.idle();
    expect(seen.filter((s) => s.startsWith('event'))).toEqual(['event 0', 'event 1', 'event 3', 'event 4']);
    expect(seen.indexOf('other work')).toBeGreaterThan(0);
    expect(seen.indexOf('other work')).toBeLessThan(seen.length - 1);
    intake.push(5);
    await intake.idle();
    expect(seen.at(-1)).toBe('event 5');
  });
});
