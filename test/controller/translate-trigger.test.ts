// The translate trigger coalesces a burst of watch events into one pass: after a quiet period, or at the
// latest a fixed time after the first event while events keep coming.
import { describe, expect, it } from 'vitest';
import { TranslateTrigger } from '../../src/controller/translate-trigger.js';
import { FakeClock } from './fake-clock.js';

function setup() {
  const clock = new FakeClock();
  const fired: number[] = [];
  const trigger = new TranslateTrigger({ clock, fire: () => fired.push(clock.now()), quietMs: 100, maxWaitMs: 2000 });
  return { clock, fired, trigger };
}

describe('TranslateTrigger', () => {
  it('fires once, 100 ms after the last of a burst of 500 events 2 ms apart', () => {
    const { clock, fired, trigger } = setup();
    for (let i = 0; i < 500; i++) {
      trigger.changed();
      clock.advance(2);
    }
    clock.advance(200);
    expect(fired).toEqual([998 + 100]);
  });

  it('fires at the cap while events keep coming, then after the quiet period', () => {
    const { clock, fired, trigger } = setup();
    for (let i = 0; i < 300; i++) {
      trigger.changed();
      clock.advance(10);
    }
    clock.advance(500);
    expect(fired).toEqual([2000, 2990 + 100]);
  });

  it('fires once per separate change', () => {
    const { clock, fired, trigger } = setup();
    trigger.changed();
    clock.advance(500);
    trigger.changed();
    clock.advance(500);
    expect(fired).toEqual([100, 600]);
  });

  it('does not fire after cancel', () => {
    const { clock, fired, trigger } = setup();
    trigger.changed();
    trigger.cancel();
    clock.advance(500);
    expect(fired).toEqual([]);
  });
});
