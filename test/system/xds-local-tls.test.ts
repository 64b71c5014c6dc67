// Local mode with `--xds-mode tls`: the CA lives in --xds-ca-dir, proxies trust its ca.crt, and a
// restarted controller keeps the same CA so running proxies need nothing new.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseControllerFlags } from '../../src/cli/controller.js';
import { startLocalServer, type LocalServer } from '../../src/controller/local/serve-local.js';
import { startXdsProxy, type XdsProxy } from '../../src/proxy/xds-config.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { tempDirs } from '../support/temp-dir.js';
import { freePort, initializeStatus, isReady, log, waitFor, writeManifests } from './harness.js';

const tempDir = tempDirs();
const readyUrl = (p: XdsProxy) => `http://127.0.0.1:${p.ops.readyPort}/healthz/ready`;

describe('local mode serving xDS over TLS', () => {
  let dir: string;
  let fixture: HttpFixture;
  let listenerPort: number;
  let xdsPort: number;
  const servers: LocalServer[] = [];
  const proxies: XdsProxy[] = [];

  const start = async () => {
    const cfg = parseControllerFlags([
      '--manifests',
      join(dir, 'manifests'),
      '--xds-mode',
      'tls',
      '--xds-ca-dir',
      join(dir, 'ca'),
      '--xds-port',
      String(xdsPort),
      '--health-port',
      '0',
      '--metrics-port',
      '0',
    ]);
    const server = await startLocalServer(cfg, log, { host: '127.0.0.1', debounceMs: 20 });
    servers.push(server);
    return server;
  };
  const proxy = async (caFile?: string) => {
    const p = await startXdsProxy({
      address: `127.0.0.1:${xdsPort}`,
      gateway: 'default/web',
      podName: `pod-${proxies.length}`,
      log,
      readyAddress: '127.0.0.1:0',
      metricsAddress: '127.0.0.1:0',
      listenAddress: '127.0.0.1',
      backoff: { initialMs: 10, maxMs: 200 },
      ...(caFile ? { caFile } : {}),
    });
    proxies.push(p);
    return p;
  };

  beforeAll(async () => {
    dir = tempDir('gw-local-tls-');
    fixture = await startHttpFixture({ id: 'local-tls' });
    [listenerPort, xdsPort] = [await freePort(), await freePort()];
    writeManifests(join(dir, 'manifests'), { listenerPort, targetUrl: new URL(fixture.url), routePath: '/mcp' });
  });

  afterAll(async () => {
    for (const p of proxies) await p.close();
    for (const s of servers) await s.stop();
    await fixture?.close();
  });

  it('keeps the CA private in the folder and publishes its bundle for proxies', async () => {
    const server = await start();
    expect(server.xds.caBundle).toContain('BEGIN CERTIFICATE');
    expect(readFileSync(join(dir, 'ca', 'ca.crt'), 'utf8')).toBe(server.xds.caBundle);
    expect(statSync(join(dir, 'ca', 'ca.json')).mode & 0o077).toBe(0);
  });

  it('serves a proxy that trusts ca.crt and not one that dials in plaintext', async () => {
    const trusted = await proxy(join(dir, 'ca', 'ca.crt'));
    await waitFor('the TLS proxy to be ready', () => isReady(readyUrl(trusted)));
    expect(await initializeStatus(`http://127.0.0.1:${listenerPort}/mcp`)).toBe(200);
    await trusted.close();
    proxies.pop();

    const plaintext = await proxy();
    // Refused by the TLS server again and again (each attempt ends in a disconnect), never ready.
    let refused = 0;
    plaintext.client.on('disconnected', () => refused++);
    await waitFor('the plaintext proxy refused three times', () => refused >= 3);
    expect(await isReady(readyUrl(plaintext))).toBe(false);
  });

  it('keeps the same CA across a restart', async () => {
    const before = readFileSync(join(dir, 'ca', 'ca.crt'), 'utf8');
    await servers.pop()?.stop();
    const server = await start();
    expect(server.xds.caBundle).toBe(before);
  });
});

describe('local mode xDS flags', () => {
  it('defaults to plaintext in local mode and tls in a cluster', () => {
    expect(parseControllerFlags(['--manifests', 'x']).xdsMode).toBe('plaintext');
    expect(parseControllerFlags([]).xdsMode).toBe('tls');
  });

  it('asks for a CA folder when local mode serves TLS, and refuses one in a cluster', () => {
    expect(() => parseControllerFlags(['--manifests', 'x', '--xds-mode', 'either'])).toThrow(
      'local mode with --xds-mode either needs --xds-ca-dir DIR',
    );
    expect(() => parseControllerFlags(['--xds-ca-dir', '/tmp/ca'])).toThrow('--xds-ca-dir is only for local mode');
  });
});
