// The whole path a user builds: Gateway API objects and a JWT GwPolicy applied to a real API server, the
// controller process translating them, and `gw proxy` in xDS mode (TLS, TokenRequest token of the
// Gateway's ServiceAccount) enforcing the policy in front of a real MCP server.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { startHttpFixture, type HttpFixture } from '../../fixtures/mcp-http-server.js';
import { installGwCrds } from '../support/gw-crds.js';
import { e2eKubeConfig, useNamespace } from '../support/kube.js';
import { e2eLogDir, eventually, startController, type ControllerProcess } from './support/controller-process.js';
import { apply, gateway, gatewayClass, mcpRoute, serviceAccountToken, tryRead, type Obj } from './support/objects.js';

const suffix = randomBytes(3).toString('hex');
const controllerName = `gw.dev/e2e-pauth-${suffix}`;
const className = `gw-pauth-${suffix}`;
const issuer = 'https://idp.e2e.example';
const audience = 'mcp-e2e';

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe('proxy fed by the controller enforces a JWT GwPolicy on MCP traffic', () => {
  const ns = useNamespace('ctl-pauth');
  const kc = e2eKubeConfig();
  const dir = mkdtempSync(join(tmpdir(), 'gw-pauth-e2e-'));
  let ctl: ControllerProcess | undefined;
  let proxy: ChildProcess | undefined;
  let proxyExit: Promise<void> | undefined;
  let fixture: HttpFixture | undefined;
  let privateKey: CryptoKey;
  let mcpUrl: string;

  beforeAll(async () => {
    const keys = await generateKeyPair('RS256');
    privateKey = keys.privateKey;
    const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'e2e', alg: 'RS256', use: 'sig' };
    fixture = await startHttpFixture({ id: 'auth' });
    const fixturePort = Number(new URL(fixture.url).port);
    const listenerPort = await freePort();
    mcpUrl = `http://127.0.0.1:${listenerPort}/mcp`;

    await installGwCrds(inject('kubeconfig'), kc);
    ctl = startController({
      kubeconfig: inject('kubeconfig'),
      identity: `pauth-${suffix}`,
      controllerName,
      leaderElectionNamespace: ns(),
    });
    await ctl.ready();
    await apply(kc, gatewayClass(className, controllerName));
    await apply(kc, gateway(ns(), 'edge', className, [{ name: 'http', port: listenerPort, protocol: 'HTTP' }]));
    const backend: Obj = {
      apiVersion: 'gw.dev/v1alpha1',
      kind: 'GwBackend',
      metadata: { name: 'tools', namespace: ns() },
      spec: { mcp: { targets: [{ name: 'local', static: { host: '127.0.0.1', port: fixturePort, path: '/mcp' } }] } },
    };
    await apply(kc, backend);
    await apply(kc, mcpRoute(ns(), 'mcp', 'edge', 'tools'));
    await apply(kc, {
      apiVersion: 'gw.dev/v1alpha1',
      kind: 'GwPolicy',
      metadata: { name: 'jwt', namespace: ns() },
      spec: {
        targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'mcp' }],
        traffic: {
          jwtAuthentication: {
            mode: 'Strict',
            providers: [{ issuer, audiences: [audience], jwks: { inline: JSON.stringify({ keys: [jwk] }) } }],
            mcp: { resourceMetadata: { resource: mcpUrl } },
          },
        },
      },
    });

    const bundle = await eventually(
      () => tryRead(kc, 'v1', 'ConfigMap', 'gw-xds-ca', ns()),
      60_000,
      'CA bundle ConfigMap',
    );
    writeFileSync(join(dir, 'ca.crt'), (bundle.data as Record<string, string>)['ca.crt']!);
    await eventually(() => tryRead(kc, 'v1', 'ServiceAccount', 'edge', ns()), 60_000, 'proxy ServiceAccount');
    writeFileSync(join(dir, 'xds.token'), await serviceAccountToken(kc, ns(), 'edge', 'gw-xds'));

    const readyPort = await freePort();
    proxy = spawn(
      process.execPath,
      [
        'bin/gw.js',
        'proxy',
        '--xds-address',
        `127.0.0.1:${ctl.xdsPort}`,
        '--gateway',
        `${ns()}/edge`,
        '--pod-name',
        'e2e',
        '--xds-token-file',
        join(dir, 'xds.token'),
        '--xds-ca',
        join(dir, 'ca.crt'),
        '--xds-server-name',
        'localhost',
        '--listen-address',
        '127.0.0.1',
        '--ready-address',
        `127.0.0.1:${readyPort}`,
        '--metrics-address',
        '127.0.0.1:0',
        '--shutdown-min-delay',
        '0',
        '--log-level',
        'debug',
      ],
      { cwd: join(e2eLogDir, '..', '..', '..'), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    proxyExit = new Promise<void>((resolve) => proxy!.once('close', () => resolve()));
    const logFile = createWriteStream(join(e2eLogDir, `proxy-${suffix}.log`));
    proxy.stdout!.pipe(logFile);
    proxy.stderr!.pipe(logFile);

    // The proxy's log is block-buffered when piped, so readiness is polled on a port chosen here.
    await eventually(
      async () => {
        if (proxy!.exitCode !== null) throw new Error(`proxy exited with ${proxy!.exitCode}`);
        return (await fetch(`http://127.0.0.1:${readyPort}/healthz/ready`)).status === 200 ? true : undefined;
      },
      90_000,
      'proxy ready',
    );
    // Ready means the first snapshot applied; the listener must answer (with the policy) before the assertions.
    await eventually(
      async () => ((await fetch(mcpUrl, { method: 'POST' })).status === 401 ? true : undefined),
      60_000,
      'policy enforced on the listener',
    );
  }, 400_000);

  afterAll(async () => {
    if (proxy && proxy.exitCode === null && proxy.signalCode === null) proxy.kill('SIGTERM');
    const timer = setTimeout(() => proxy?.kill('SIGKILL'), 15_000);
    await proxyExit;
    clearTimeout(timer);
    await ctl?.stop();
    await fixture?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers an MCP request without a token with 401 and a Bearer challenge', async () => {
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
      }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(fixture!.sessions()).toBe(0);
  });

  it('rejects a JWT signed by a key outside the inline JWKS with invalid_token', async () => {
    const other = await generateKeyPair('RS256');
    const forged = await new SignJWT({ sub: 'mallory' })
      .setProtectedHeader({ alg: 'RS256', kid: 'e2e' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(other.privateKey);
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${forged}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect(await res.text()).not.toContain(forged);
  });

  it('lets an MCP client with a JWT from the configured issuer call a tool through the proxy', async () => {
    const jwt = await new SignJWT({ sub: 'alice' })
      .setProtectedHeader({ alg: 'RS256', kid: 'e2e' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${jwt}` } },
      }),
    );
    try {
      const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      expect(result.content).toEqual([{ type: 'text', text: 'auth:hi' }]);
    } finally {
      await client.close();
    }
  });
});
