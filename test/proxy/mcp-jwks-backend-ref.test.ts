// MCP authentication whose signing keys come through a backendRef, with the backend's TLS: both forms,
// `traffic.jwtAuthentication.providers[].jwks.remote.backendRef` with `mcp` and the deprecated
// `backend.mcp.authentication.jwks.backendRef`. The keys are a real oidc-provider's (its JWKS route), reached
// through a TLS front with a private CA (tls-testdata/) behind a static GwBackend whose `policies.tls` names
// the CA and the SNI; the access tokens are the provider's own (client credentials). Without the right CA no
// key loads and every token is refused (401); a token signed by another key is refused either way.
import { readFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { importJWK, SignJWT, type CryptoKey } from 'jose';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { makeSigningKey, startProvider, type OidcHarness } from '../support/oidc/provider.js';
import { mcpBackendManifest, trafficManifests } from './traffic-manifests.js';
import { httpRoute, translatedIr } from './translated-ir.js';

const pem = (f: string): string => readFileSync(join(import.meta.dirname, 'tls-testdata', f), 'utf8');
const SECRET = 'svc-secret-2b7e91';
const KEYS_PATH = '/as/jwks';

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
});

describe('MCP authentication with keys through a backendRef and the backend TLS', () => {
  let idp: OidcHarness;
  let front: TlsServer;
  let fixture: HttpFixture;
  let runtime: ProxyRuntime;
  let base: string;
  let ir = '';
  let forger: CryptoKey;
  let frontPort = 0;

  const token = async (): Promise<string> => {
    const r = await idp.clientCredentials({
      grant_type: 'client_credentials',
      client_id: 'svc',
      client_secret: SECRET,
    });
    expect(r.status).toBe(200);
    return r.body.access_token as string;
  };
  const init = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: initialize,
    });

  beforeAll(async () => {
    idp = await startProvider({
      issuerPath: '/as',
      routes: { authorization: '/as/auth', token: '/as/token', jwks: KEYS_PATH },
      clients: [
        {
          client_id: 'svc',
          client_secret: SECRET,
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
        },
      ],
      key: await makeSigningKey('idp-1'),
      resource: { default: 'https://tools.example', audience: (i) => i, scope: 'tools.read' },
    });
    // The same kid as the provider's key, another key: only the provider's fetched keys tell them apart.
    forger = (await importJWK((await makeSigningKey('idp-1')).privateJwk, 'RS256')) as CryptoKey;
    const idpPort = Number(new URL(idp.origin).port);
    front = createTlsServer({ cert: pem('a.crt'), key: pem('a.key') }, (s) => {
      const to = connect(idpPort, '127.0.0.1');
      s.pipe(to).pipe(s);
      s.on('error', () => to.destroy());
      to.on('error', () => s.destroy());
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    frontPort = (front.address() as AddressInfo).port;
    fixture = await startHttpFixture({ id: 'jwks-ref' });
    const port = Number(new URL(fixture.url).port);
    const keysBackend = (name: string, ca: string) => `
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  static: {host: 127.0.0.1, port: ${frontPort}}
  policies: {tls: {sni: a.example.test, caCertificateRefs: [{name: ${ca}}]}}
`;
    const ref = (name: string) => `{group: gw.dev, kind: GwBackend, name: ${name}}`;
    const mcp = `mcp: {provider: IdpA, clientId: gw, resourceMetadata: {resource: "http://gw.test/mcp"}}`;
    const viaTraffic = (keys: string) =>
      `{jwtAuthentication: {providers: [{issuer: "${idp.issuer}", jwks: {remote: {backendRef: ${ref(keys)}, path: ${KEYS_PATH}}}}], ${mcp}}}`;
    const ownBackend = (name: string, keys: string) => `
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  mcp:
    targets:
    - name: t
      static: {host: 127.0.0.1, port: ${port}, path: /mcp}
  policies:
    mcp:
      authentication: {issuer: "${idp.issuer}", jwks: {backendRef: ${ref(keys)}, path: ${KEYS_PATH}}}
${httpRoute(name)}`;
    const configMap = (name: string, crt: string) => `
apiVersion: v1
kind: ConfigMap
metadata: {name: ${name}, namespace: default}
data: {ca.crt: ${JSON.stringify(pem(crt))}}
`;
    const extra = [
      mcpBackendManifest('mcp', port),
      configMap('idp-ca', 'ca.crt'),
      configMap('other-ca', 'b.crt'),
      keysBackend('idp', 'idp-ca'),
      keysBackend('idp-other-ca', 'other-ca'),
      ownBackend('own', 'idp'),
      ownBackend('own-other-ca', 'idp-other-ca'),
    ].join('---\n');
    const cases = [
      { name: 'traffic', backend: 'mcp', traffic: viaTraffic('idp') },
      { name: 'traffic-other-ca', backend: 'mcp', traffic: viaTraffic('idp-other-ca') },
    ];
    const snapshot = translatedIr(trafficManifests(1, cases, extra));
    ir = JSON.stringify(snapshot);
    runtime = new ProxyRuntime({ log: pino({ level: 'silent' }), security: createRouteSecurity() });
    await runtime.apply(snapshot);
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await fixture?.close();
    await new Promise((resolve) => front?.close(resolve));
    await idp?.close();
  });

  it('carries the fetch URL and the backend TLS in the IR, never a 503 refusal', () => {
    const routes = (JSON.parse(ir) as { resources: { route?: { name: string; refusals?: unknown[] } }[] }).resources
      .map((r) => r.route)
      .filter((r) => r !== undefined);
    const ours = routes.filter((r) => /\/(traffic|own)/.test(r.name));
    expect(ours).toHaveLength(4);
    expect(ours.filter((r) => r.refusals?.length)).toEqual([]);
    expect(ir).toContain(`https://127.0.0.1:${frontPort}${KEYS_PATH}`);
    expect(ir.match(/"jwksTls"/g)?.length).toBeGreaterThanOrEqual(4);
    expect(ir).toContain('a.example.test');
  });

  for (const path of ['/traffic', '/own'])
    it(`${path}: verifies the provider's tokens with keys fetched over the backend TLS, refuses others`, async () => {
      expect((await init(path, { authorization: `Bearer ${await token()}` })).status).toBe(200);
      // The keys came from the provider's JWKS route, through the TLS front (the only way the proxy reaches it).
      expect(idp.hits).toContain(`GET ${KEYS_PATH}`);
      const forged = await new SignJWT({ sub: 'mallory' })
        .setProtectedHeader({ alg: 'RS256', kid: 'idp-1' })
        .setIssuer(idp.issuer)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(forger);
      expect((await init(path, { authorization: `Bearer ${forged}` })).status).toBe(401);
      expect((await init(path)).status).toBe(401);
    });

  for (const path of ['/traffic-other-ca', '/own-other-ca'])
    it(`${path}: refuses every token when the keys cannot be fetched with the backend TLS`, async () => {
      const res = await init(path, { authorization: `Bearer ${await token()}` });
      expect(res.status).toBe(401);
    });
});
