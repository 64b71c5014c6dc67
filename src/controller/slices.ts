// Long synchronous work (a translation pass, a burst of watch events) split into slices: after each
// slice of at most `budgetMs` the work yields to the event loop, so lease renewals, health probes and
// xDS streams are served in between.
import { performance } from 'node:perf_hooks';

export interface Slicer {
  /** Yields to the event loop when the current slice has used its budget; otherwise resolves at once. */
  maybeYield(): Promise<void>;
}

/** Slices of 20 ms keep the longest stall well under the 100 ms the control plane promises. */
export const DEFAULT_SLICE_MS = 20;

export function createSlicer(budgetMs = DEFAULT_SLICE_MS, now: () => number = () => performance.now()): Slicer {
  let sliceStart = now();
  return {
    async maybeYield() {
      if (now() - sliceStart < budgetMs) return;
      await yieldToEventLoop();
      sliceStart = now();
    },
  };
}

/** setImmediate runs after pending I/O callbacks: timers and sockets get their turn. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
