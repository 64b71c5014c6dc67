// Runs reconcilers over a work queue: N workers, a thrown error means retry with backoff, a result
// with requeueAfter means come back later, success forgets the key's failures.
import type { Logger } from 'pino';
import type { WorkQueue } from './workqueue.js';

export interface Result {
  requeueAfter?: number;
}

export type Reconcile = (key: string) => Promise<Result>;

export function runWorkers(queue: WorkQueue, reconcile: Reconcile, workers: number, log: Logger): Promise<void> {
  const one = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        const r = await reconcile(key);
        queue.forget(key);
        if (r.requeueAfter !== undefined && r.requeueAfter > 0) queue.addAfter(key, r.requeueAfter);
      } catch (err) {
        log.warn({ key, err: errText(err), retries: queue.retries(key) }, 'reconcile failed; retrying with backoff');
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  };
  return Promise.all(Array.from({ length: workers }, one)).then(() => undefined);
}

/** An error as one line for logs: never the stack, never a request body. */
export function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
