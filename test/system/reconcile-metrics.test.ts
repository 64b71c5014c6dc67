// Cluster-mode reconcile metrics: translation time, failures per reconciler, retries, queue depth.
import { describe, expect, it } from 'vitest';
import { createControllerMetrics } from '../../src/controller/ops-server.js';
import { createReconcileMetrics, instrumentReconcile } from '../../src/controller/reconcile-metrics.js';

describe('reconcile metrics', () => {
  it('times translate, counts a failing reconciler and its retry, and reads the queue depth at scrape time', async () => {
    const controller = createControllerMetrics();
    let depth = 3;
    const m = createReconcileMetrics(controller, () => depth);
    const instrument = instrumentReconcile(m);
    await instrument('translate', async () => ({}));
    await expect(
      instrument('status', async () => {
        throw new Error('409 conflict');
      }),
    ).rejects.toThrow('409 conflict');
    depth = 7;
    const text = await controller.registry.metrics();
    expect(text).toContain('gw_translate_duration_seconds_count{mode="cluster"} 1');
    expect(text).toContain('gw_reconcile_errors_total{reconciler="status"} 1');
    expect(text).toContain('gw_workqueue_retries_total 1');
    expect(text).toContain('gw_workqueue_depth 7');
  });
});
