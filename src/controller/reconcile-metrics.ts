// Cluster-mode metrics around the work queue: a wrapper for the reconcile function the workers call
// (duration of `translate`, failures per reconciler, retries) and the queue depth read at scrape time.
import { performance } from 'node:perf_hooks';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ControllerMetrics } from './ops-server.js';
import type { Result } from './workers.js';

export interface ReconcileMetrics {
  controller: ControllerMetrics;
  queueRetries: Counter;
}

/** Registers the queue metrics; `depth` is read on every scrape. */
export function createReconcileMetrics(controller: ControllerMetrics, depth: () => number): ReconcileMetrics {
  const registers: Registry[] = [controller.registry];
  new Gauge({
    name: 'gw_workqueue_depth',
    help: 'Requests waiting in the work queues (translate, status, deploy).',
    registers,
    collect() {
      this.set(depth());
    },
  });
  return {
    controller,
    queueRetries: new Counter({
      name: 'gw_workqueue_retries_total',
      help: 'Keys re-queued with backoff after a failed reconcile.',
      registers,
    }),
  };
}

/** Wraps each reconcile of the named reconciler: failures per reconciler, retries, translation time. */
export function instrumentReconcile(m: ReconcileMetrics) {
  return async (reconciler: string, run: () => Promise<Result>): Promise<Result> => {
    const start = performance.now();
    try {
      return await run();
    } catch (err) {
      // The workers re-queue every failed request with backoff: one failure is one retry.
      m.controller.reconcileErrors.inc({ reconciler });
      m.queueRetries.inc();
      throw err;
    } finally {
      if (reconciler === 'translate')
        m.controller.translateDuration.observe({ mode: 'cluster' }, (performance.now() - start) / 1000);
    }
  };
}
