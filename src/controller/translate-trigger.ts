// Coalesces a burst of object changes into few translation passes: a pass starts once changes have
// been quiet for `quietMs`, but never later than `maxDelayMs` after the first change of the burst, so a
// steady stream of writes still reaches the proxies.
import type { Clock } from './clock.js';

export interface TranslateTrigger {
  /** Something changed: a pass is due after the burst (or at the latest `maxDelayMs` after its start). */
  poke(): void;
  /** Runs the pass now (startup, leadership) and ends the current burst. */
  flush(): void;
  stop(): void;
}

export interface TranslateTriggerOptions {
  clock: Clock;
  /** Starts a pass (the translate queue coalesces requests that arrive while one runs). */
  fire: () => void;
  /** Quiet time that ends a burst (default 100 ms). */
  quietMs?: number;
  /** Longest wait after the first change of a burst (default 2 s). */
  maxDelayMs?: number;
}

export const DEFAULT_QUIET_MS = 100;
export const DEFAULT_MAX_DELAY_MS = 2_000;

export function createTranslateTrigger(o: TranslateTriggerOptions): TranslateTrigger {
  const quiet = o.quietMs ?? DEFAULT_QUIET_MS;
  const maxDelay = o.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  let burstStart: number | undefined;
  let timer: unknown;
  let stopped = false;
  const fireNow = () => {
    o.clock.clearTimeout(timer);
    timer = undefined;
    burstStart = undefined;
    if (!stopped) o.fire();
  };
  return {
    poke() {
      if (stopped) return;
      const now = o.clock.now();
      burstStart ??= now;
      const due = Math.min(now + quiet, burstStart + maxDelay);
      o.clock.clearTimeout(timer);
      timer = o.clock.setTimeout(fireNow, Math.max(0, due - now));
    },
    flush: fireNow,
    stop() {
      stopped = true;
      o.clock.clearTimeout(timer);
      timer = undefined;
    },
  };
}
