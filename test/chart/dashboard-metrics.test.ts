// The chart's Grafana dashboard must query metrics with labels they really carry (issue 16 item 9):
// every selector, grouping and legend label is checked against the label names of the metric
// registries the code creates, plus the target labels the chart's scrape objects attach. Whether each
// metric is really served is checked against live processes in test/system/dashboard-scrape.test.ts.
import type { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createControllerMetrics } from '../../src/controller/ops-server.js';
import { createReconcileMetrics } from '../../src/controller/reconcile-metrics.js';
import { createMetrics } from '../../src/proxy/metrics.js';
import { createXdsMetrics } from '../../src/xds/metrics.js';
import { dashboardQueries, readDashboard } from './dashboard-queries.js';

// Labels Prometheus (job, instance) and the Prometheus operator (namespace, pod, container, and
// service for a ServiceMonitor) attach on scrape; `gateway` is the PodMonitor's relabeling of the
// proxy pods' gw.dev/gateway label (templates/monitoring.yaml).
const TARGET_LABELS = {
  controller: ['job', 'instance', 'namespace', 'pod', 'container', 'service', 'endpoint'],
  proxy: ['job', 'instance', 'namespace', 'pod', 'container', 'gateway'],
};

interface Exported {
  histogram: boolean;
  labels: Set<string>;
}

function exported(): Map<string, Exported> {
  const controller = createControllerMetrics();
  createReconcileMetrics(controller, () => 0);
  createXdsMetrics(controller.registry);
  const sides: [Registry, string[]][] = [
    [controller.registry, TARGET_LABELS.controller],
    [createMetrics().registry, TARGET_LABELS.proxy],
  ];
  const out = new Map<string, Exported>();
  for (const [registry, targetLabels] of sides) {
    for (const m of registry.getMetricsAsArray() as unknown as {
      name: string;
      labelNames?: string[];
      constructor: { name: string };
    }[]) {
      out.set(m.name, {
        histogram: m.constructor.name === 'Histogram',
        labels: new Set([...(m.labelNames ?? []), ...targetLabels]),
      });
    }
  }
  return out;
}

/** The registry entry a selected series belongs to, histogram `_bucket` / `_sum` / `_count` included. */
function lookup(metrics: Map<string, Exported>, name: string): { metric: Exported; bucket: boolean } | undefined {
  const direct = metrics.get(name);
  if (direct) return { metric: direct, bucket: false };
  const m = /^(.+)_(bucket|sum|count)$/.exec(name);
  const base = m ? metrics.get(m[1] as string) : undefined;
  return base?.histogram ? { metric: base, bucket: m?.[2] === 'bucket' } : undefined;
}

describe('the chart dashboard', () => {
  const queries = dashboardQueries(readDashboard());
  const metrics = exported();

  it('queries only metrics the code registers, by labels they carry', () => {
    const problems: string[] = [];
    for (const q of queries) {
      for (const s of q.refs.selectors) {
        const found = lookup(metrics, s.metric);
        if (!found) {
          problems.push(`${q.where}: ${s.metric} is not registered`);
          continue;
        }
        const allowed = new Set([...found.metric.labels, ...(found.bucket ? ['le'] : [])]);
        for (const l of [...s.labels, ...q.refs.grouping])
          if (!allowed.has(l)) problems.push(`${q.where}: ${s.metric} has no label ${l}`);
      }
      for (const l of q.legendLabels)
        if (!q.refs.grouping.includes(l)) problems.push(`${q.where}: legend {{${l}}} is not a grouping label`);
    }
    expect(problems).toEqual([]);
  });

  it('charts requests, latency, MCP, tokens, moderation, listeners and the controller', () => {
    const selected = new Set(queries.flatMap((q) => q.refs.selectors.map((s) => s.metric)));
    for (const metric of [
      'gw_http_requests_total',
      'gw_http_request_duration_seconds_bucket',
      'gw_proxy_errors_total',
      'gw_mcp_requests_total',
      'gw_mcp_sessions_active',
      'gw_llm_tokens_total',
      'gw_llm_moderation_total',
      'gw_listener_connections_denied_total',
      'gw_xds_connected_proxies',
      'gw_xds_pushes_total',
      'gw_xds_nacks_total',
      'gw_translate_duration_seconds_count',
      'gw_reconcile_errors_total',
    ])
      expect(selected, metric).toContain(metric);
  });
});
