// Coalesces bursts of snapshot changes: flushes `quietMs` after the last change, but never later than
// `maxMs` after the first change of a burst, so continuous churn still reaches proxies.

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  now: () => performance.now(),
};

export interface Debouncer<K> {
  add(keys: Iterable<K>): void;
  /** Drops pending keys without flushing. */
  cancel(): void;
}

export function createDebouncer<K>(opts: {
  quietMs: number;
  maxMs: number;
  flush: (keys: Set<K>) => void;
  timers?: Timers;
}): Debouncer<K> {
  const timers = opts.timers ?? realTimers;
  let pending = new Set<K>();
  let firstAt = 0;
  let handle: unknown;

  const fire = () => {
    handle = undefined;
    const keys = pending;
    pending = new Set();
    if (keys.size > 0) opts.flush(keys);
  };

  return {
    add(keys) {
      const wasEmpty = pending.size === 0;
      for (const k of keys) pending.add(k);
      if (pending.size === 0) return;
      const now = timers.now();
      if (wasEmpty) firstAt = now;
      if (handle !== undefined) timers.clearTimeout(handle);
      const delay = Math.max(0, Math.min(opts.quietMs, firstAt + opts.maxMs - now));
      handle = timers.setTimeout(fire, delay);
    },
    cancel() {
      if (handle !== undefined) timers.clearTimeout(handle);
      handle = undefined;
      pending = new Set();
    },
  };
}
