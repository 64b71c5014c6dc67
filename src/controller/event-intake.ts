// Watch events arrive in large chunks (hundreds per read during a burst); handling them all in one go
// would stall the event loop. The intake queues them in arrival order and handles them in slices that
// yield in between.
import type { Logger } from 'pino';
import { createSlicer, yieldToEventLoop } from './slices.js';
import { errText } from './workers.js';

export class EventIntake<T> {
  private readonly items: T[] = [];
  private draining: Promise<void> | undefined;

  constructor(
    private readonly o: {
      handle: (item: T) => void;
      log: Logger;
      sliceMs?: number;
    },
  ) {}

  push(item: T): void {
    this.items.push(item);
    this.draining ??= this.drain();
  }

  /** Resolves once every item pushed so far has been handled. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    // Handling starts on a later turn, so the whole chunk just read is queued first.
    await yieldToEventLoop();
    const slicer = createSlicer(this.o.sliceMs);
    let next = 0;
    while (next < this.items.length) {
      const item = this.items[next++]!;
      try {
        this.o.handle(item);
      } catch (err) {
        // One bad event must not stop the others from reaching the store.
        this.o.log.error({ err: errText(err) }, 'watch event handler failed');
      }
      if (next > 1024) {
        this.items.splice(0, next);
        next = 0;
      }
      await slicer.maybeYield();
    }
    this.items.length = 0;
    this.draining = undefined;
  }
}
