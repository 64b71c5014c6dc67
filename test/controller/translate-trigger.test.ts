// The translation trigger coalesces a burst of changes into one pass: the pass waits for a quiet gap,
// but a stream of changes that never goes quiet still gets a pass at the cap after its first change.
import { describe, expect, it } from 'vitest';
import { createTranslateTrigger } from '../../src/controller/translate-trigger.js';
import { FakeClock } from './fake-clock.js';

function trigger(quietMs = 100, maxDelayMs = 2_000) {
  const clock = new FakeClock();
  let fired = 0;
  const t = createTranslateTrigger({ clock, fire: () => fired++, quietMs, maxDelayMs });
  return { clock, t, fired: () => fired };
}

describe('translate trigger', () => {
  it('runs one pass for a burst of 500 changes once they go quiet', () => {
    const { clock, t, fired } = trigger();
    for (let i = 0; i < 500; i++) {
      t.poke();
      clock.advance(1);
    }
    expect(fired()).toBe(0);
    clock.advance(100);
    expect(fired()).toBe(1);
    clock.advance(10_000);
    expect(fired()).toBe(1);
  });

  it('runs a pass at the cap while changes never go quiet, then starts a new burst', () => {
    const { clock, t, fired } = trigger();
    // One change every 50 ms for 5 s: never 100 ms quiet.
    const firedAt: number[] = [];
    for (let i = 0; i < 100; i++) {
      t.poke();
      const before = fired();
      clock.advance(50);
      if (fired() > before) firedAt.push(clock.now());
    }
    expect(firedAt.length).toBe(2);
    expect(firedAt[0]).toBeLessThanOrEqual(2_050);
    expect(firedAt[1]! - firedAt[0]!).toBeLessThanOrEqual(2_050);
  });

  it('runs each separate change after the quiet time', () => {
    const { clock, t, fired } = trigger();
    t.poke();
    clock.advance(99);
    expect(fired()).toBe(0);
    clock.advance(1);
    expect(fired()).toBe(1);
    t.poke();
    clock.advance(100);
    expect(fired()).toBe(2);
  });

  it('flush runs the pass at once and ends the burst; stop drops a pending one', () => {
    const { clock, t, fired } = trigger();
    t.poke();
    t.flush();
    expect(fired()).toBe(1);
    clock.advance(1_000);
    expect(fired()).toBe(1);
    t.poke();
    t.stop();
    clock.advance(5_000);
    t.poke();
    clock.advance(5_000);
    expect(fired()).toBe(1);
  });
});
