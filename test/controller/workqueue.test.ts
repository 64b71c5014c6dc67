import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { bucketLimiter, exponentialLimiter, maxOfLimiters, WorkQueue } from '../../src/controller/workqueue.js';
import { runWorkers } from '../../src/controller/workers.js';
import { FakeClock } from './fake-clock.js';

const silent = pino({ level: 'silent' });
const tick = () => new Promise((r) => setImmediate(r));

describe('WorkQueue', () => {
  it('hands out a key added many times only once', async () => {
    const q = new WorkQueue(new FakeClock());
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.len()).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(q.len()).toBe(0);
  });

  it('never hands a key to two workers at once and processes it again when re-added while processing', async () => {
    const q = new WorkQueue(new FakeClock());
    q.add('a');
    const k = await q.get();
    q.add('a');
    expect(q.len()).toBe(0);
    let second: string | undefined;
    void q.get().then((x) => (second = x));
    await tick();
    expect(second).toBeUndefined();
    q.done(k!);
    await tick();
    expect(second).toBe('a');
  });

  it('adds a delayed key when its time comes and keeps the earliest of two delays', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue(clock);
    q.addAfter('a', 1000);
    q.addAfter('a', 200);
    q.addAfter('a', 5000);
    clock.advance(199);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    clock.advance(10_000);
    expect(q.len()).toBe(1);
  });

  it('backs off a failing key exponentially and forgets it after success', () => {
    const l = exponentialLimiter(5, 100);
    expect([l.when('a'), l.when('a'), l.when('a'), l.when('a'), l.when('a'), l.when('a')]).toEqual([
      5, 10, 20, 40, 80, 100,
    ]);
    expect(l.retries('a')).toBe(6);
    expect(l.when('b')).toBe(5);
    l.forget('a');
    expect(l.when('a')).toBe(5);
  });

  it('limits the overall rate with a token bucket once the burst is spent', () => {
    const clock = new FakeClock();
    const l = bucketLimiter(clock, 10, 2);
    expect([l.when('a'), l.when('b'), l.when('c'), l.when('d')]).toEqual([0, 0, 100, 200]);
    clock.advance(1000);
    expect(l.when('e')).toBe(0);
  });

  it('waits for the longest of per-item and overall limits', () => {
    const clock = new FakeClock();
    const l = maxOfLimiters(exponentialLimiter(50, 1000), bucketLimiter(clock, 1, 1));
    expect(l.when('a')).toBe(50);
    expect(l.when('b')).toBe(1000);
  });

  it('shuts down: idle workers stop, queued keys are dropped, in-flight keys are drained', async () => {
    const q = new WorkQueue(new FakeClock());
    q.add('a');
    q.add('b');
    const k = await q.get();
    let drained = false;
    const done = q.shutDown().then(() => (drained = true));
    expect(await q.get()).toBeUndefined();
    q.add('c');
    expect(q.len()).toBe(0);
    await tick();
    expect(drained).toBe(false);
    q.done(k!);
    await done;
    expect(drained).toBe(true);
  });
});

describe('runWorkers', () => {
  it('retries a reconcile that throws with backoff and honours requeueAfter', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue(clock, exponentialLimiter(100, 10_000));
    const calls: string[] = [];
    let fail = 2;
    const running = runWorkers(
      q,
      async (key) => {
        calls.push(`${key}@${clock.now()}`);
        if (key === 'x' && fail-- > 0) throw new Error('boom');
        return key === 'y' && calls.filter((c) => c.startsWith('y')).length === 1 ? { requeueAfter: 500 } : {};
      },
      2,
      silent,
    );
    q.add('x');
    q.add('y');
    await tick();
    clock.advance(100);
    await tick();
    clock.advance(200);
    await tick();
    clock.advance(200);
    await tick();
    expect(calls).toEqual(['x@0', 'y@0', 'x@100', 'x@300', 'y@500']);
    expect(q.retries('x')).toBe(0);
    await q.shutDown();
    await running;
  });

  it('runs different keys concurrently but one key never twice at once', async () => {
    const q = new WorkQueue(new FakeClock());
    let active = 0;
    let maxActive = 0;
    const perKey = new Map<string, number>();
    let overlap = false;
    const running = runWorkers(
      q,
      async (key) => {
        active++;
        maxActive = Math.max(maxActive, active);
        perKey.set(key, (perKey.get(key) ?? 0) + 1);
        if (perKey.get(key)! > 1) overlap = true;
        await tick();
        q.add(key === 'a' ? 'a' : 'b');
        await tick();
        perKey.set(key, perKey.get(key)! - 1);
        active--;
        return {};
      },
      4,
      silent,
    );
    q.add('a');
    q.add('b');
    for (let i = 0; i < 20; i++) await tick();
    await q.shutDown();
    await running;
    expect(overlap).toBe(false);
    expect(maxActive).toBe(2);
  });
});
