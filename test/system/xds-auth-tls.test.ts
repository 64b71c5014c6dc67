// The proxy's xDS mode against the xDS server as the cluster controller runs it: authentication on
// (a token checker standing in for TokenReview, which needs an API server) with the real per-Gateway
// ServiceAccount rule, and TLS with serving-certificate rotation while proxies carry traffic.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalController } from '../../src/controller/local/local-controller.js';
import { createControllerSource, type ControllerSource } from '../../src/controller/snapshot-source.js';
import { authorizeGatewayServiceAccount } from '../../src/controller/xds-glue.js';
import { startXdsProxy, type XdsProxy } from '../../src/proxy/xds-config.js';
import { memoryCaStore } from '../../src/xds/ca.js';
import { createXdsServer, type XdsServer } from '../../src/xds/server.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import {
  connectMcp,
  freePort,
  initializeStatus,
  isReady,
  log,
  startEchoLoad,
  waitFor,
  writeManifests,
  writeRoute,
} from './harness.js';

describe('proxies against the xDS server with authentication and TLS', () => {
  let dir: string;
  let fixture: HttpFixture;
  let controller: LocalController;
  let source: ControllerSource;
  let listenerPort: number;
  const servers: XdsServer[] = [];
  const proxies: XdsProxy[] = [];
  const clients: Client[] = [];

  const publish = () => {
    controller.reload();
    for (const [gw, snap] of controller.snapshots) source.publish(gw, snap);
  };
  const proxy = async (
    port: number,
    gateway: string,
    extra: { tokenFile?: string; caFile?: string; listenAddress?: string } = {},
  ) => {
    const p = await startXdsProxy({
      address: `127.0.0.1:${port}`,
      gateway,
      podName: `pod-${proxies.length}`,
      log,
      readyAddress: '127.0.0.1:0',
      metricsAddress: '127.0.0.1:0',
      listenAddress: extra.listenAddress ?? '127.0.0.1',
      backoff: { initialMs: 10, maxMs: 200 },
      ...(extra.tokenFile ? { tokenFile: extra.tokenFile } : {}),
      ...(extra.caFile ? { caFile: extra.caFile } : {}),
    });
    proxies.push(p);
    return p;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-system-auth-'));
    fixture = await startHttpFixture({ id: 'auth' });
    listenerPort = await freePort();
    writeManifests(join(dir, 'manifests'), { listenerPort, targetUrl: new URL(fixture.url), routePath: '/mcp' });
    controller = new LocalController({
      manifests: join(dir, 'manifests'),
      translate: { controllerName: 'gw.dev/gateway-controller' },
      logger: log,
      builtinClass: { name: 'gw', controllerName: 'gw.dev/gateway-controller' },
    });
    source = createControllerSource();
    publish();
    source.setReady(true);
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    for (const p of proxies) await p.close();
    for (const s of servers) await s.close();
    await fixture?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stays not ready until its first complete snapshot arrives, then serves it', async () => {
    const port = await freePort();
    const early = await proxy(port, 'default/web');
    const readyUrl = `http://127.0.0.1:${early.ops.readyPort}/healthz/ready`;
    // It has tried the control plane (nobody listens yet) before readiness is asked.
    let attempts = 0;
    early.client.on('disconnected', () => attempts++);
    await waitFor('a failed attempt to reach the control plane', () => attempts >= 1);
    const before = await fetch(readyUrl);
    expect(before.status).toBe(503);
    expect(await before.json()).toEqual({
      error: 'not_ready',
      error_description: 'no configuration has been applied yet',
    });
    const server = await createXdsServer({ source, log, host: '127.0.0.1', port, mode: 'plaintext' });
    servers.push(server);
    await waitFor('ready once the controller serves', () => isReady(readyUrl));
    expect(await initializeStatus(`http://127.0.0.1:${listenerPort}/mcp`)).toBe(200);
    await early.close();
  });

  it('refuses a proxy whose ServiceAccount belongs to another gateway and serves the one it belongs to', async () => {
    const registry = new Registry();
    // Stands in for TokenReview: this token is the ServiceAccount `web` of namespace default.
    const server = await createXdsServer({
      source,
      log,
      host: '127.0.0.1',
      port: 0,
      mode: 'plaintext',
      registry,
      authenticate: async (token) =>
        token === 'sa-default-web' ? { namespace: 'default', serviceAccount: 'web' } : null,
      authorize: authorizeGatewayServiceAccount,
    });
    servers.push(server);
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'sa-default-web\n');
    const other = await proxy(server.port, 'default/other', { tokenFile });
    const denied = await new Promise<string>((resolve) =>
      other.client.once('disconnected', (status) => resolve(status.details)),
    );
    expect(denied).toContain('may not read the configuration of gateway default/other');
    expect(await isReady(`http://127.0.0.1:${other.ops.readyPort}/healthz/ready`)).toBe(false);
    expect(await registry.getSingleMetricAsString('gw_xds_streams_refused_total')).toMatch(
      /reason="permission_denied"\} [1-9]/,
    );

    const own = await proxy(server.port, 'default/web', { tokenFile });
    await waitFor('the gateway own proxy ready', () => isReady(`http://127.0.0.1:${own.ops.readyPort}/healthz/ready`));
    expect(await initializeStatus(`http://127.0.0.1:${listenerPort}/mcp`)).toBe(200);
    expect(other.client.ready).toBe(false);
    await own.close();
    await other.close();
  });

  it('rotates the serving certificate under load without a failed request or a dropped stream', async () => {
    const server = await createXdsServer({
      source,
      log,
      host: '127.0.0.1',
      port: 0,
      mode: 'tls',
      caStore: memoryCaStore(),
    });
    servers.push(server);
    const caFile = join(dir, 'ca.crt');
    writeFileSync(caFile, server.caBundle ?? '');
    const addresses = ['127.0.0.1', '127.0.0.2'];
    const pair = [
      await proxy(server.port, 'default/web', { caFile, listenAddress: addresses[0] }),
      await proxy(server.port, 'default/web', { caFile, listenAddress: addresses[1] }),
    ];
    for (const p of pair)
      await waitFor('proxy ready over TLS', () => isReady(`http://127.0.0.1:${p.ops.readyPort}/healthz/ready`));
    let drops = 0;
    for (const p of pair) p.client.on('disconnected', () => drops++);
    const sessions = await Promise.all(addresses.map((a) => connectMcp(`http://${a}:${listenerPort}/mcp`)));
    clients.push(...sessions);
    const load = startEchoLoad(sessions);
    await server.rotateServingCert();
    // The load goes on across the first rotation before the second.
    const servedBefore = load.ok();
    await waitFor('calls served after the first rotation', () => load.ok() >= servedBefore + 5);
    await server.rotateServingCert();
    // The open streams still deliver: a change after the rotations reaches both proxies.
    writeRoute(join(dir, 'manifests'), '/rotated', 'rotated');
    publish();
    for (const a of addresses)
      await waitFor(
        `${a} serving /rotated`,
        async () => (await initializeStatus(`http://${a}:${listenerPort}/rotated`)) === 200,
      );
    // A proxy connecting now verifies the new certificate against the same CA bundle.
    const late = await proxy(server.port, 'default/web', { caFile, listenAddress: '127.0.0.3' });
    await waitFor('a new proxy ready after the rotation', () =>
      isReady(`http://127.0.0.1:${late.ops.readyPort}/healthz/ready`),
    );
    const failures = await load.stop();
    expect(failures).toEqual([]);
    expect(load.ok()).toBeGreaterThan(0);
    expect(drops).toBe(0);
  });
});
