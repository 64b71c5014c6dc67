// Cluster-mode metrics around the work queue: a wrapper for the reconcile function the workers call
// (duration of `translate`, failures per reconciler, retries) and the queue depth read at scrape time.
import { performance } from 'node:perf_hooks';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ControllerMetrics } from './ops-server.js';
import type { Reconcile } from './workers.js';

export interface ReconcileMetrics {
  controller: ControllerMetrics;
  queueRetries: Counter;
}

/** Registers the queue metrics; `depth` is read on every scrape. */
export function createReconcileMetrics(controller: ControllerMetrics, depth: () => number): ReconcileMetrics {
  const registers: Registry[] = [controller.registry];
  new Gauge({
    name: 'gw_workqueue_depth',
    help: 'Keys waiting in the work queue.',
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

/** Keys are `translate`, `status:<Kind/ns/name>` or `deploy:<ns/name>`; the reconciler is the part before `:`. */
export function instrumentReconcile(reconcile: Reconcile, m: ReconcileMetrics): Reconcile {
  return async (key) => {
    const reconciler = key.includes(':') ? key.slice(0, key.indexOf(':')) : key;
    const start = performance.now();
    try {
      return await reconcile(key);
    } catch (err) {
      // The workers re-queue every failed key with backoff: one failure is one retry.
      m.controller.reconcileErrors.inc({ reconciler });
      m.queueRetries.inc();
      throw err;
    } finally {
      if (reconciler === 'translate')
        m.controller.translateDuration.observe({ mode: 'cluster' }, (performance.now() - start) / 1000);
    }
  };
}
