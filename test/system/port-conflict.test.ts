// Issue 32's repro: the example's Gateway listener moved to a port another process holds, then back.
// The proxy refuses the bind and drops the routes that hung on it; statuses must say so, and once
// the port is moved back the proxy must serve every route again without a restart, with every
// status clean. A local-mode controller (in-process) and a `gw proxy` process, over xDS on loopback.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../src/controller/local/serve-local.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import {
  freePort,
  initializeStatus,
  isReady,
  startController,
  startProxyProcess,
  waitFor,
  writeManifests,
  type ProxyProcess,
} from './harness.js';

describe('a Gateway listener moved to a taken port and back', () => {
  let dir: string;
  let manifests: string;
  let statusDir: string;
  let fixture: HttpFixture;
  let controller: LocalServer;
  let proxy: ProxyProcess;
  let blocker: Server;
  let port: number;
  let taken: number;
  const statusOf = (key: string) => {
    try {
      return readFileSync(join(statusDir, `${key}.yaml`), 'utf8');
    } catch {
      return '';
    }
  };
  const setPort = (p: number) =>
    writeFileSync(
      join(manifests, 'gateway.yaml'),
      readFileSync(join(manifests, 'gateway.yaml'), 'utf8').replace(/port: \d+/, `port: ${p}`),
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-port-conflict-'));
    manifests = join(dir, 'manifests');
    statusDir = join(dir, 'status');
    fixture = await startHttpFixture({ id: 'conflict' });
    const xdsPort = await freePort();
    [port, taken] = [await freePort(), await freePort()];
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(taken, '127.0.0.1', resolve));
    writeManifests(manifests, { listenerPort: port, targetUrl: new URL(fixture.url), routePath: '/mcp' });
    controller = await startController(manifests, statusDir, xdsPort);
    proxy = startProxyProcess({
      xdsPort,
      gateway: 'default/web',
      pod: 'proxy-0',
      listenAddress: '127.0.0.1',
      readyPort: await freePort(),
    });
    await waitFor('proxy ready', () => isReady(proxy.readyUrl), 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${proxy.output()}`);
    });
  });

  afterAll(async () => {
    await proxy?.stop();
    await controller?.stop();
    await fixture?.close();
    blocker?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports the refused bind on the Gateway and the dropped route on the HTTPRoute while the port is taken', async () => {
    expect(await initializeStatus(`http://127.0.0.1:${port}/mcp`)).toBe(200);
    setPort(taken);
    await waitFor('the route refused in its status file', () =>
      statusOf('HTTPRoute/default/mcp').includes('RejectedByProxy'),
    );
    expect(statusOf('HTTPRoute/default/mcp')).toContain(
      'proxy proxy-0 rejected route/HTTPRoute/default/mcp/0: listeners[0]: refers to listener default/web/http, which does not exist',
    );
    await waitFor('the bind refused in the Gateway status', () =>
      statusOf('Gateway/default/web').includes('EADDRINUSE'),
    );
    expect(statusOf('Gateway/default/web')).not.toContain('the snapshot for this Gateway is built');
    await waitFor(
      'the old port closed',
      async () => (await initializeStatus(`http://127.0.0.1:${port}/mcp`).catch(() => 0)) === 0,
    );
  });

  it('serves the unchanged route again once the port is moved back, with every status clean', async () => {
    setPort(port);
    await waitFor(
      'the route served again',
      async () => (await initializeStatus(`http://127.0.0.1:${port}/mcp`).catch(() => 0)) === 200,
    );
    await waitFor('no refusal left in any status', () =>
      ['HTTPRoute/default/mcp', 'Gateway/default/web', 'GwBackend/default/tools'].every(
        (key) => statusOf(key) !== '' && !statusOf(key).includes('RejectedByProxy'),
      ),
    );
    expect(statusOf('Gateway/default/web')).toContain('the snapshot for this Gateway is built');
    expect(controller.xds.proxies().map((p) => p.rejected)).toEqual([[]]);
  });
});
