// A per-request identity on an MCP target (`spec.mcp.targets[].static.policies.auth.oauthTokenExchange`), through
// the same code as HTTP edges: the client's validated token is exchanged at a real oidc-provider (token-exchange
// grant registered through its extension point) and every request the SDK fixture server receives for the
// session carries the exchanged token, never the client's. An exchange that fails answers the client and the
// target is never called.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import {
  EXCHANGE_BASIC_SECRET,
  TOKEN_EXCHANGE,
  startExchangeServer,
  type ExchangeServer,
} from '../support/oidc/token-exchange.js';
import { connectClient, textOf } from './harness.js';
import { log } from './http-forward-harness.js';
import { GATEWAY_WEB, translatedIr } from './translated-ir.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function manifests(x: ExchangeServer, port: number): string {
  const basic = 'clientAuth: {clientId: gw-basic, secretRef: {name: as-basic}}';
  const tools = (name: string, exchangeUrl: string): string => `---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  mcp:
    targets:
    - name: t
      static:
        host: 127.0.0.1
        port: ${port}
        path: /mcp
        policies: {auth: {oauthTokenExchange: {url: "${exchangeUrl}", path: /as/token, audiences: [tools], ${basic}}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ${name}, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /${name}}}]
    backendRefs: [{group: gw.dev, kind: GwBackend, name: ${name}}]
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: ${name}-jwt, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: ${name}}]
  traffic: {jwtAuthentication: {providers: [{issuer: "${x.userIssuer}", jwks: {inline: ${JSON.stringify(JSON.stringify(x.userJwks))}}}]}}
`;
  return `${GATEWAY_WEB}---
apiVersion: v1
kind: Secret
metadata: {name: as-basic, namespace: default}
data: {clientSecret: ${b64(EXCHANGE_BASIC_SECRET)}}
${tools('tools', x.as.origin)}${tools('down', 'http://127.0.0.1:1')}`;
}

describe('backend identities on MCP targets', () => {
  let x: ExchangeServer;
  let fixture: HttpFixture;
  let runtime: ProxyRuntime;
  let base: string;

  beforeAll(async () => {
    x = await startExchangeServer();
    fixture = await startHttpFixture({ id: 'exchanged' });
    runtime = new ProxyRuntime({ log, security: createRouteSecurity() });
    await runtime.apply(translatedIr(manifests(x, Number(new URL(fixture.url).port))));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await fixture?.close();
    await x?.close();
  });

  it("sends the target the exchanged token on every request of the session, never the client's", async () => {
    const alice = await x.userToken('alice');
    const before = x.grants.issued.length;
    const seenBefore = fixture.headers.length;
    const { client } = await connectClient(`${base}/tools`, {}, { authorization: `Bearer ${alice}` });
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('exchanged:hi');
      await client.listTools();
    } finally {
      await client.close();
    }
    const issued = x.grants.issued.slice(before);
    // One exchange for the session: later requests of the same subject are served from the cache.
    expect(issued).toHaveLength(1);
    expect(issued[0]).toMatchObject({ grant: TOKEN_EXCHANGE, clientId: 'gw-basic', sub: 'alice', audience: ['tools'] });
    const seen = fixture.headers.slice(seenBefore);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    for (const h of seen) expect(h.authorization).toBe(`Bearer ${issued[0]?.token}`);
    expect(JSON.stringify(seen)).not.toContain(alice);
  });

  it('obtains the token for each client: a second subject gets its own', async () => {
    const bob = await x.userToken('bob');
    const before = x.grants.issued.length;
    const seenBefore = fixture.headers.length;
    const { client } = await connectClient(`${base}/tools`, {}, { authorization: `Bearer ${bob}` });
    try {
      await client.callTool({ name: 'echo', arguments: { text: 'b' } });
    } finally {
      await client.close();
    }
    const issued = x.grants.issued.slice(before);
    expect(issued.map((i) => i.sub)).toEqual(['bob']);
    for (const h of fixture.headers.slice(seenBefore)) expect(h.authorization).toBe(`Bearer ${issued[0]?.token}`);
  });

  it('answers 502 when the token endpoint cannot be reached, and the target is never called', async () => {
    const carol = await x.userToken('carol');
    const seenBefore = fixture.headers.length;
    const res = await fetch(`${base}/down`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${carol}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const text = await res.text();
    expect(res.status).toBe(502);
    expect(JSON.parse(text)).toMatchObject({ error: 'credential_unavailable' });
    expect(text).not.toContain(carol);
    expect(fixture.headers.length).toBe(seenBefore);
  });
});
