// Watch events are handled in arrival order, in slices that let other work run in between, and one
// failing event neither stops the others nor the drained notice.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { EventIntake } from '../../src/controller/event-intake.js';

describe('event intake', () => {
  it('handles a chunk in order after it is queued, lets other work run between slices and reports the drain', async () => {
    const seen: string[] = [];
    let drained = 0;
    const intake = new EventIntake<number>({
      handle: (n) => {
        if (n === 2) throw new Error('bad event');
        seen.push(`event ${n}`);
      },
      onDrained: () => drained++,
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
    expect(drained).toBe(1);
    intake.push(5);
    await intake.idle();
    expect(seen.at(-1)).toBe('event 5');
    expect(drained).toBe(2);
  });
});
