// Issue 16: every metric the chart's Grafana dashboard queries is served on the /metrics endpoint of a
// real `gw controller` or `gw proxy`. Both run as processes (local-mode controller, proxy over xDS),
// MCP traffic goes through the proxy, and both endpoints are scraped; a registered metric the command
// never serves, or a renamed one, fails here.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardQueries, readDashboard } from '../chart/dashboard-queries.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { exposedFamilies, isExposed } from '../support/exposition.js';
import {
  connectMcp,
  freePort,
  isReady,
  startControllerProcess,
  startProxyProcess,
  waitFor,
  writeManifests,
  type GwProcess,
} from './harness.js';

async function scrape(url: string): Promise<string> {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  return res.text();
}

describe('the dashboard against live /metrics', () => {
  let dir: string;
  let fixture: HttpFixture;
  const processes: GwProcess[] = [];
  let listenerPort: number;
  let controllerMetrics: string;
  let proxyMetrics: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-dashboard-'));
    fixture = await startHttpFixture({ id: 'dash' });
    const [xdsPort, healthPort, metricsPort, readyPort, proxyMetricsPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    listenerPort = await freePort();
    const manifests = join(dir, 'manifests');
    writeManifests(manifests, { listenerPort, targetUrl: new URL(fixture.url), routePath: '/mcp' });
    const controller = startControllerProcess({
      manifests,
      statusDir: join(dir, 'status'),
      xdsPort,
      healthPort,
      metricsPort,
    });
    processes.push(controller);
    await waitFor('controller ready', () => isReady(controller.readyUrl), 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${controller.output()}`);
    });
    const proxy = startProxyProcess({
      xdsPort,
      gateway: 'default/web',
      pod: 'proxy-0',
      listenAddress: '127.0.0.1',
      readyPort,
      metricsPort: proxyMetricsPort,
    });
    processes.push(proxy);
    await waitFor('proxy ready', () => isReady(proxy.readyUrl), 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${proxy.output()}`);
    });
    controllerMetrics = controller.metricsUrl;
    proxyMetrics = `http://127.0.0.1:${proxyMetricsPort}/metrics`;
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await fixture?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finds every metric a panel or variable queries on the controller or the proxy', async () => {
    // Traffic first, so the labelled series the panels chart exist too, not only their HELP lines.
    const client = await connectMcp(`http://127.0.0.1:${listenerPort}/mcp`);
    await client.callTool({ name: 'echo', arguments: { text: 'dashboard' } });
    await client.close();
    expect((await fetch(`http://127.0.0.1:${listenerPort}/nowhere`)).status).toBe(404);

    const controller = await scrape(controllerMetrics);
    const proxy = await scrape(proxyMetrics);
    expect(proxy).toMatch(/^gw_mcp_requests_total\{method="tools\/call"\} [1-9]/m);
    expect(controller).toMatch(/^gw_xds_connected_proxies 1$/m);

    const families = new Map([...exposedFamilies(controller), ...exposedFamilies(proxy)]);
    const queries = dashboardQueries(readDashboard());
    const missing = queries.flatMap((q) =>
      q.refs.selectors.filter((s) => !isExposed(s.metric, families)).map((s) => `${q.where}: ${s.metric}`),
    );
    expect(missing, 'queried by the dashboard, served by neither /metrics').toEqual([]);
    expect(queries.length).toBeGreaterThan(20);
  });
});
