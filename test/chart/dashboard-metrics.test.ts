// The chart's Grafana dashboard must query metrics the controller and the proxy really export, with
// labels they really carry (issue 16 item 9): every name, `by (...)` label, selector label and legend
// label is checked against the metric registries the code creates.
import { readFileSync } from 'node:fs';
import type { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createControllerMetrics } from '../../src/controller/ops-server.js';
import { createReconcileMetrics } from '../../src/controller/reconcile-metrics.js';
import { createMetrics } from '../../src/proxy/metrics.js';
import { createXdsMetrics } from '../../src/xds/metrics.js';

interface Panel {
  title: string;
  targets?: { expr: string; legendFormat?: string }[];
}

function exported(): Map<string, { type: string; labels: string[] }> {
  const controller = createControllerMetrics();
  createReconcileMetrics(controller, () => 0);
  createXdsMetrics(controller.registry);
  const registries: Registry[] = [controller.registry, createMetrics().registry];
  const out = new Map<string, { type: string; labels: string[] }>();
  for (const r of registries) {
    for (const m of r.getMetricsAsArray() as unknown as {
      name: string;
      type?: string;
      labelNames?: string[];
      constructor: { name: string };
    }[]) {
      out.set(m.name, { type: m.constructor.name, labels: m.labelNames ?? [] });
    }
  }
  return out;
}

describe('the chart dashboard', () => {
  const dashboard = JSON.parse(
    readFileSync(new URL('../../charts/gw/dashboards/gw.json', import.meta.url), 'utf8'),
  ) as { panels: Panel[] };
  const metrics = exported();

  it('queries only metrics that exist, by labels they carry', () => {
    const problems: string[] = [];
    for (const panel of dashboard.panels) {
      for (const t of panel.targets ?? []) {
        const names = [...t.expr.matchAll(/\b(gw_[a-z0-9_]+)/g)].map((m) => m[1] as string);
        const groupBy = [...t.expr.matchAll(/\bby \(([^)]*)\)/g)].flatMap((m) =>
          (m[1] as string).split(',').map((l) => l.trim()),
        );
        const selectors = [...t.expr.matchAll(/\{([^}]*)\}/g)].flatMap((m) =>
          [...(m[1] as string).matchAll(/([a-z_]+)\s*(=~|!=|!~|=)/g)].map((x) => x[1] as string),
        );
        const legend = [...(t.legendFormat ?? '').matchAll(/\{\{\s*([a-z_]+)\s*\}\}/g)].map((m) => m[1] as string);
        for (const name of names) {
          const histogram =
            /_(bucket|sum|count)$/.test(name) &&
            metrics.get(name.replace(/_(bucket|sum|count)$/, ''))?.type === 'Histogram';
          const metric = metrics.get(histogram ? name.replace(/_(bucket|sum|count)$/, '') : name);
          if (!metric) {
            problems.push(`${panel.title}: ${name} is not exported`);
            continue;
          }
          const allowed = new Set([...metric.labels, ...(histogram ? ['le'] : [])]);
          for (const l of [...groupBy, ...selectors])
            if (!allowed.has(l)) problems.push(`${panel.title}: ${name} has no label ${l}`);
        }
        for (const l of legend)
          if (!groupBy.includes(l)) problems.push(`${panel.title}: legend {{${l}}} is not a grouping label`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('covers the proxy error codes and open sessions', () => {
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)).join('\n');
    expect(exprs).toContain('gw_proxy_errors_total');
    expect(exprs).toContain('gw_mcp_sessions_active');
  });
});
