// When a translation pass starts after watch events: once changes have been quiet for `quietMs`, or
// `maxWaitMs` after the first change of a burst at the latest. A burst of any length within the cap is one
// pass; a steady stream of changes still gets a pass every `maxWaitMs`. Leader and followers use the same.
import type { Clock } from './clock.js';

export interface TranslateTriggerOptions {
  clock: Clock;
  /** Starts the pass (enqueues the translate request). */
  fire: () => void;
  quietMs?: number;
  maxWaitMs?: number;
}

/** Defaults: a pass 100 ms after the last change, and never more than 2 s after the first. */
export const TRANSLATE_QUIET_MS = 100;
export const TRANSLATE_MAX_WAIT_MS = 2000;

export class TranslateTrigger {
  private firstAt: number | undefined;
  private timer: unknown;
  private readonly quietMs: number;
  private readonly maxWaitMs: number;

  constructor(private readonly o: TranslateTriggerOptions) {
    this.quietMs = o.quietMs ?? TRANSLATE_QUIET_MS;
    this.maxWaitMs = o.maxWaitMs ?? TRANSLATE_MAX_WAIT_MS;
  }

  /** A change was recorded: (re)arm the timer. */
  changed(): void {
    const now = this.o.clock.now();
    this.firstAt ??= now;
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    const delay = Math.max(0, Math.min(this.quietMs, this.firstAt + this.maxWaitMs - now));
    this.timer = this.o.clock.setTimeout(() => this.fire(), delay);
  }

  /** No pass is due any more (stopping). */
  cancel(): void {
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.firstAt = undefined;
  }

  private fire(): void {
    this.timer = undefined;
    this.firstAt = undefined;
    this.o.fire();
  }
}
