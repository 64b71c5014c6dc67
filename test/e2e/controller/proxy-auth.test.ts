// The whole path a user builds: Gateway API objects and a JWT GwPolicy applied to a real API server, the
// controller process translating them, and `gw proxy` in xDS mode (TLS, TokenRequest token of the
// Gateway's ServiceAccount) enforcing the policy in front of a real MCP server.
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { startHttpFixture, type HttpFixture } from '../../fixtures/mcp-http-server.js';
import { installGwCrds } from '../support/gw-crds.js';
import { e2eKubeConfig, useNamespace } from '../support/kube.js';
import { eventually, startController, type ControllerProcess } from './support/controller-process.js';
import { apply, gateway, gatewayClass, mcpRoute, type Obj } from './support/objects.js';
import { freePort, startXdsProxy, type ProxyProcess } from './support/proxy-process.js';

const suffix = randomBytes(3).toString('hex');
const controllerName = `gw.dev/e2e-pauth-${suffix}`;
const className = `gw-pauth-${suffix}`;
const issuer = 'https://idp.e2e.example';
const audience = 'mcp-e2e';

describe('proxy fed by the controller enforces a JWT GwPolicy on MCP traffic', () => {
  const ns = useNamespace('ctl-pauth');
  const kc = e2eKubeConfig();
  let ctl: ControllerProcess | undefined;
  let proxy: ProxyProcess | undefined;
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

    proxy = await startXdsProxy(kc, ctl, ns(), 'edge', `proxy-${suffix}`);
    // Ready means the first snapshot applied; the listener must answer (with the policy) before the assertions.
    await eventually(
      async () => ((await fetch(mcpUrl, { method: 'POST' })).status === 401 ? true : undefined),
      60_000,
      'policy enforced on the listener',
    );
  }, 400_000);

  afterAll(async () => {
    await proxy?.stop();
    await ctl?.stop();
    await fixture?.close();
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
