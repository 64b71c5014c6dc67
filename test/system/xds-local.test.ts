// A local-mode controller and two `gw proxy` processes over xDS on loopback: manifest edits reach
// both proxies, the proxies keep serving without the controller and resync after it restarts, and a
// resource a proxy rejects shows up in its object's status file.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../src/controller/local/serve-local.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import {
  connectMcp,
  freePort,
  initializeStatus,
  isReady,
  startController,
  startEchoLoad,
  startProxyProcess,
  waitFor,
  writeManifests,
  writeRoute,
  type ProxyProcess,
} from './harness.js';

const addresses = ['127.0.0.1', '127.0.0.2'];

describe('local controller with two proxies over xDS', () => {
  let dir: string;
  let manifests: string;
  let statusDir: string;
  let fixture: HttpFixture;
  let controller: LocalServer | undefined;
  let xdsPort: number;
  let listenerPort: number;
  const proxies: ProxyProcess[] = [];
  const clients: Client[] = [];
  const url = (i: number, path: string) => `http://${addresses[i]}:${listenerPort}${path}`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-system-'));
    manifests = join(dir, 'manifests');
    statusDir = join(dir, 'status');
    fixture = await startHttpFixture({ id: 'sys' });
    [xdsPort, listenerPort] = [await freePort(), await freePort()];
    writeManifests(manifests, { listenerPort, targetUrl: new URL(fixture.url), routePath: '/mcp' });
    controller = await startController(manifests, statusDir, xdsPort);
    for (const [i, listenAddress] of addresses.entries()) {
      proxies.push(
        startProxyProcess({
          xdsPort,
          gateway: 'default/web',
          pod: `proxy-${i}`,
          listenAddress,
          readyPort: await freePort(),
        }),
      );
    }
    for (const p of proxies)
      await waitFor(`proxy ready at ${p.readyUrl}`, () => isReady(p.readyUrl), 60_000).catch((err: Error) => {
        throw new Error(`${err.message}\n${p.output()}`);
      });
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all(proxies.map((p) => p.stop()));
    await controller?.stop();
    await fixture?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the MCP route from the manifests on both proxies once each has its first snapshot', async () => {
    for (const i of [0, 1]) {
      const client = await connectMcp(url(i, '/mcp'));
      clients.push(client);
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('echo');
    }
    expect(
      controller?.xds
        .proxies()
        .map((p) => p.pod)
        .sort(),
    ).toEqual(['proxy-0', 'proxy-1']);
  });

  it('moves the route on both proxies when the manifest file changes', async () => {
    writeRoute(manifests, '/v2/mcp');
    for (const i of [0, 1])
      await waitFor(`proxy ${i} serving /v2/mcp`, async () => (await initializeStatus(url(i, '/v2/mcp'))) === 200);
    for (const i of [0, 1]) expect(await initializeStatus(url(i, '/mcp'))).toBe(404);
  });

  it('keeps serving with no failed request while the controller is stopped and resyncs after a restart', async () => {
    const sessions = await Promise.all([0, 1].map((i) => connectMcp(url(i, '/v2/mcp'))));
    clients.push(...sessions);
    const load = startEchoLoad(sessions);
    await waitFor('the load running', () => load.ok() >= 10);
    await controller?.stop();
    controller = undefined;
    // Served while nobody serves xDS: at least 20 more calls after the controller is gone.
    const atStop = load.ok();
    await waitFor('calls answered while the controller is away', () => load.ok() >= atStop + 20);
    for (const p of proxies) expect(await isReady(p.readyUrl)).toBe(true);
    const whileAway = load.ok();
    // The folder changes while nobody serves it: the restarted controller must deliver it.
    writeRoute(manifests, '/extra', 'extra');
    controller = await startController(manifests, statusDir, xdsPort);
    for (const i of [0, 1])
      await waitFor(
        `proxy ${i} serving /extra after the restart`,
        async () => (await initializeStatus(url(i, '/extra'))) === 200,
        30_000,
      );
    await waitFor('calls answered after the restart', () => load.ok() >= whileAway + 10);
    const failures = await load.stop();
    expect(failures).toEqual([]);
    expect(whileAway).toBeGreaterThan(10);
    expect(load.ok()).toBeGreaterThan(whileAway);
    await waitFor('both proxies reconnected', () => (controller?.xds.proxies().length ?? 0) === 2);
  });

  it('reports a resource a proxy rejects in that object status file and keeps applying the rest', async () => {
    // The CRD asks only that agentRuntimeArn start with `arn:`; a Lambda ARN passes the controller, and the
    // proxy rejects it because it names no AgentCore runtime to invoke.
    writeFileSync(
      join(manifests, 'plain.yaml'),
      `apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: plain, namespace: default}
spec:
  aws: {agentCore: {agentRuntimeArn: 'arn:aws:lambda:us-east-1:123456789012:function:plain'}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: plain, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /plain}}]
    backendRefs: [{group: gw.dev, kind: GwBackend, name: plain}]
`,
    );
    writeRoute(manifests, '/v4/mcp');
    const file = join(statusDir, 'GwBackend/default/plain.yaml');
    await waitFor('RejectedByProxy in the GwBackend status file', () => {
      try {
        return readFileSync(file, 'utf8').includes('RejectedByProxy');
      } catch {
        return false;
      }
    });
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('must be an AgentCore runtime ARN');
    expect(text).toMatch(/proxy proxy-[01] rejected backend\/GwBackend\/default\/plain/);
    // The rest of the same update was applied.
    for (const i of [0, 1])
      await waitFor(`proxy ${i} serving /v4/mcp`, async () => (await initializeStatus(url(i, '/v4/mcp'))) === 200);
    // Removing the object clears the rejection.
    rmSync(join(manifests, 'plain.yaml'));
    await waitFor('status file of the removed GwBackend gone', () => {
      try {
        readFileSync(file, 'utf8');
        return false;
      } catch {
        return true;
      }
    });
    const metrics = await (await fetch(`http://127.0.0.1:${controller?.ops.metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/gw_xds_nacks_total\{gateway="default\/web"\} [1-9]/);
    expect(metrics).toContain('gw_translate_duration_seconds_count{mode="local"}');
  });

  it('answers /healthz and /readyz on the health port once manifests are loaded and xDS serves, JSON errors elsewhere', async () => {
    const health = controller?.ops.healthPort;
    expect((await fetch(`http://127.0.0.1:${health}/readyz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${health}/healthz`)).status).toBe(200);
    const missing = await fetch(`http://127.0.0.1:${health}/metrics`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: 'not_found',
      error_description: 'only /healthz and /readyz are served here',
    });
  });
});
