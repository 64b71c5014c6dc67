// The chart ships charts/gw/dashboards/gw.json as a ConfigMap Grafana's dashboard sidecar picks up by
// label (monitoring.grafanaDashboard), and gives proxy series the `gateway` label the dashboard filters by.
import { describe, expect, it } from 'vitest';
import { GATEWAY_LABEL } from '../../src/deployer/naming.js';
import { readDashboard } from './dashboard-queries.js';
import { findObject, renderCase } from './helm-run.js';

const dashboardConfigMaps = (caseName: string) =>
  renderCase(caseName).filter((o) => o.kind === 'ConfigMap' && o.metadata.name === 'gw-dashboard');

describe('the dashboard ConfigMap', () => {
  it('is not rendered by default', () => {
    expect(dashboardConfigMaps('defaults')).toEqual([]);
  });

  it('holds the dashboard JSON unchanged, labelled for the Grafana sidecar, in the release namespace', () => {
    const [configMap] = dashboardConfigMaps('monitoring-on');
    expect(configMap?.metadata.namespace).toBe('gw-system');
    expect(configMap?.metadata.labels).toMatchObject({ grafana_dashboard: '1', team: 'platform' });
    const json = (configMap?.data as Record<string, string>)['gw.json'] as string;
    expect(JSON.parse(json)).toEqual(readDashboard());
  });

  it('can be rendered alone, with other sidecar labels and in the namespace Grafana watches', () => {
    const objects = renderCase('dashboard-only');
    expect(objects.filter((o) => o.apiVersion.startsWith('monitoring.coreos.com/'))).toEqual([]);
    const [configMap] = dashboardConfigMaps('dashboard-only');
    expect(configMap?.metadata.namespace).toBe('monitoring');
    // Helm merges label maps with the default; `grafana_dashboard: null` would drop it.
    expect(configMap?.metadata.labels).toMatchObject({ grafana_dashboard: '1', grafana_dashboard_gw: 'true' });
    expect(JSON.parse((configMap?.data as Record<string, string>)['gw.json'] as string)).toEqual(readDashboard());
  });
});

describe('the proxies PodMonitor', () => {
  it("turns the deployer's gateway pod label into the gateway label the dashboard's variable reads", () => {
    const podMonitor = findObject(renderCase('monitoring-on'), 'PodMonitor');
    const endpoints = (podMonitor.spec as { podMetricsEndpoints: { relabelings: Record<string, unknown>[] }[] })
      .podMetricsEndpoints;
    // Prometheus' Kubernetes discovery replaces every character outside [a-zA-Z0-9_] in label names by _.
    const metaLabel = `__meta_kubernetes_pod_label_${GATEWAY_LABEL.replace(/[^a-zA-Z0-9_]/g, '_')}`;
    expect(endpoints[0]?.relabelings).toContainEqual({ sourceLabels: [metaLabel], targetLabel: 'gateway' });
  });
});
