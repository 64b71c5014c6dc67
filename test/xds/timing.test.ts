import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/xds/backoff.js';
import { createDebouncer, type Timers } from '../../src/xds/debounce.js';

/** A clock the test moves by hand. */
function manualTimers() {
  let now = 0;
  let seq = 0;
  const pending = new Map<number, { at: number; fn: () => void }>();
  const timers: Timers = {
    now: () => now,
    setTimeout: (fn, ms) => {
      pending.set(++seq, { at: now + ms, fn });
      return seq;
    },
    clearTimeout: (h) => void pending.delete(h as number),
  };
  const advance = (ms: number) => {
    const until = now + ms;
    for (;;) {
      const due = [...pending.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      pending.delete(due[0]);
      now = due[1].at;
      due[1].fn();
    }
    now = until;
  };
  return { timers, advance };
}

describe('push debouncing', () => {
  it('flushes once, 10 ms after the last change of a burst', () => {
    const { timers, advance } = manualTimers();
    const flushes: string[][] = [];
    const d = createDebouncer<string>({ quietMs: 10, maxMs: 1000, timers, flush: (k) => flushes.push([...k].sort()) });
    d.add(['a']);
    advance(5);
    d.add(['b']);
    advance(9);
    expect(flushes).toEqual([]);
    advance(1);
    expect(flushes).toEqual([['a', 'b']]);
  });

  it('flushes at most 1 s after the first change while changes keep coming', () => {
    const { timers, advance } = manualTimers();
    const flushTimes: number[] = [];
    const d = createDebouncer<string>({ quietMs: 10, maxMs: 1000, timers, flush: () => flushTimes.push(timers.now()) });
    for (let t = 0; t < 2500; t += 5) {
      d.add(['gw']);
      advance(5);
    }
    expect(flushTimes).toEqual([1000, 2000]);
  });

  it('drops pending keys on cancel', () => {
    const { timers, advance } = manualTimers();
    let flushed = 0;
    const d = createDebouncer<string>({ quietMs: 10, maxMs: 1000, timers, flush: () => flushed++ });
    d.add(['gw']);
    d.cancel();
    advance(100);
    expect(flushed).toBe(0);
  });
});

describe('reconnect backoff', () => {
  it('starts at 10 ms, doubles, and never exceeds 2 s, still jittered at the cap', () => {
    const mid = () => 0.5;
    expect([0, 1, 2, 3].map((a) => backoffDelay(a, mid))).toEqual([10, 20, 40, 80]);
    expect(backoffDelay(11, mid)).toBe(2_000);
    expect(backoffDelay(1000, () => 0.999)).toBe(2_000);
    expect(backoffDelay(1000, () => 0)).toBe(1_600);
  });

  it('jitters each delay within ±20%', () => {
    expect(backoffDelay(5, () => 0)).toBe(256);
    expect(backoffDelay(5, () => 0.9999)).toBe(384);
  });
});
