// A controller-runtime style controller: one reconciler, its own typed request and its own work
// queue. A request maps to one queue key and back (so equal requests coalesce while they wait);
// `reconcile(request)` returns `{ requeueAfter }` to come back later, and a thrown error means "retry
// with backoff", never a crash.
import type { Logger } from 'pino';
import type { Clock } from './clock.js';
import { runWorkers, type Result } from './workers.js';
import { WorkQueue } from './workqueue.js';

export type { Result } from './workers.js';

export interface Reconciler<R> {
  /** Names the reconciler in logs and metrics (`translate`, `status`, `deploy`). */
  readonly name: string;
  /** The queue key of a request; requests with the same key are one piece of work. */
  key(request: R): string;
  /** The request a key stands for (the inverse of `key`). */
  request(key: string): R;
  reconcile(request: R): Promise<Result>;
}

export interface ControllerOptions {
  clock: Clock;
  log: Logger;
  workers: number;
  /** Wraps every reconcile (metrics); gets the reconciler's name. */
  instrument?: (name: string, run: () => Promise<Result>) => Promise<Result>;
}

export interface Controller<R> {
  readonly name: string;
  enqueue(request: R): void;
  enqueueAfter(request: R, ms: number): void;
  /** Requests waiting (not in flight). */
  depth(): number;
  /** Refuses new requests, drops waiting ones, resolves when in-flight ones are done. */
  stop(): Promise<void>;
}

export function startController<R>(reconciler: Reconciler<R>, o: ControllerOptions): Controller<R> {
  const queue = new WorkQueue(o.clock);
  const run = (key: string) => {
    const once = () => reconciler.reconcile(reconciler.request(key));
    return o.instrument ? o.instrument(reconciler.name, once) : once();
  };
  const done = runWorkers(queue, run, o.workers, o.log.child({ reconciler: reconciler.name }));
  return {
    name: reconciler.name,
    enqueue: (request) => queue.add(reconciler.key(request)),
    enqueueAfter: (request, ms) => queue.addAfter(reconciler.key(request), ms),
    depth: () => queue.len(),
    async stop() {
      await queue.shutDown();
      await done;
    },
  };
}
