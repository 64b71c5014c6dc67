// A per-request identity on a dynamicForwardProxy backend, through the same code as every other edge: the
// destination the client names is checked first (no token is had for a refused one), then the client's
// validated token is exchanged at a real oidc-provider and only the exchanged token reaches the upstream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { EXCHANGE_BASIC_SECRET, startExchangeServer, type ExchangeServer } from '../support/oidc/token-exchange.js';
import { log, rawRequest, startUpstream, type Upstream } from './http-forward-harness.js';
import { GATEWAY_WEB, translatedIr } from './translated-ir.js';

function manifests(x: ExchangeServer): string {
  const jwks = JSON.stringify(JSON.stringify(x.userJwks));
  return `${GATEWAY_WEB}---
apiVersion: v1
kind: Secret
metadata: {name: as-basic, namespace: default}
data: {clientSecret: ${Buffer.from(EXCHANGE_BASIC_SECRET).toString('base64')}}
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: dfp, namespace: default}
spec:
  dynamicForwardProxy: {allowedDestinations: [127.0.0.0/8]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: dfp, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - {matches: [{path: {type: PathPrefix, value: /}}], backendRefs: [{group: gw.dev, kind: GwBackend, name: dfp}]}
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: dfp-jwt, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: dfp}]
  traffic: {jwtAuthentication: {providers: [{issuer: "${x.userIssuer}", jwks: {inline: ${jwks}}}]}}
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: dfp-auth, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: dfp}]
  backend:
    auth: {oauthTokenExchange: {url: "${x.as.origin}", path: /as/token, audiences: [anywhere], clientAuth: {clientId: gw-basic, secretRef: {name: as-basic}}}}
`;
}

describe('backend identities on dynamicForwardProxy backends', () => {
  let x: ExchangeServer;
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let proxyPort: number;

  beforeAll(async () => {
    x = await startExchangeServer();
    upstream = await startUpstream((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ headers: req.headers }));
    });
    runtime = new ProxyRuntime({ log, security: createRouteSecurity() });
    await runtime.apply(translatedIr(manifests(x)));
    proxyPort = Object.values(runtime.boundPorts())[0] ?? 0;
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
    await x?.close();
  });

  const get = (host: string, token: string) =>
    rawRequest(`http://127.0.0.1:${proxyPort}/x`, { headers: { host, authorization: `Bearer ${token}` } });

  it('sends the destination the client names the exchanged token only', async () => {
    const alice = await x.userToken('alice');
    const before = x.grants.issued.length;
    const res = await get(`127.0.0.1:${upstream.port}`, alice);
    expect(res.status, res.body).toBe(200);
    const issued = x.grants.issued.slice(before);
    expect(issued).toMatchObject([{ sub: 'alice', audience: ['anywhere'] }]);
    const headers = (JSON.parse(res.body) as { headers: Record<string, string> }).headers;
    expect(headers.authorization).toBe(`Bearer ${issued[0]?.token}`);
    expect(JSON.stringify(headers)).not.toContain(alice);
  });

  it('obtains no token for a destination it refuses', async () => {
    const bob = await x.userToken('bob');
    const before = x.grants.issued.length;
    const res = await get('10.1.2.3:80', bob);
    expect(res.status).toBe(403);
    expect(x.grants.issued.length).toBe(before);
    expect(res.body).not.toContain(bob);
  });
});
