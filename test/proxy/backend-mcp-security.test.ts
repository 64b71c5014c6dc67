// backend.mcp.authentication (a GwBackend's policies) and backend.mcp.authorization (a GwPolicy's backend) on
// MCP routes: checked by the same token verifier and the same one authorization evaluation as the route-level
// settings. Translated from manifests, served by a real runtime, a real streamable-HTTP MCP target and real
// JWTs from a JWKS server on 127.0.0.1; the MCP SDK is the client where a session is needed. The list filtering
// and the two-level rule run for a 2025 client (a session) and a 2026-07-28 client (stateless) alike.
import { importJWK, SignJWT, type CryptoKey } from 'jose';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { makeSigningKey } from '../support/oidc/provider.js';
import { startJwksServer, type JwksServer } from '../support/oidc/jwks-server.js';
import { generations } from './generations.js';
import { connectClient } from './harness.js';
import { GATEWAY_WEB, translatedIr } from './translated-ir.js';

const issuer = 'https://issuer.test';

function manifests(port: number, jwksUrl: string): string {
  const route = (name: string, backend: string) => `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ${name}, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - {matches: [{path: {type: PathPrefix, value: /${name}}}], backendRefs: [{group: gw.dev, kind: GwBackend, name: ${backend}}]}
`;
  const backend = (name: string, policies = '') => `
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  mcp:
    targets: [{name: t, static: {host: 127.0.0.1, port: ${port}, path: /mcp}}]
${policies}`;
  const policy = (name: string, kind: string, target: string, body: string) => `
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: ${name}, namespace: default}
spec:
  targetRefs: [{group: ${kind === 'GwBackend' ? 'gw.dev' : 'gateway.networking.k8s.io'}, kind: ${kind}, name: ${target}}]
${body}
`;
  const authn = `  policies:
    mcp:
      authentication:
        issuer: "${issuer}"
        jwks: {url: "${jwksUrl}"}
        resourceMetadata: {resource: "http://gw.test/strict"}
`;
  return [
    GATEWAY_WEB,
    backend('secured', authn),
    route('strict', 'secured'),
    backend('guarded'),
    route('guarded', 'guarded'),
    policy(
      'deny-add',
      'GwBackend',
      'guarded',
      `  backend: {mcp: {authorization: {action: Deny, policy: {matchExpressions: ['mcp.tool == "add"']}}}}`,
    ),
    // backend.mcp is one field in the policy merge: the GwBackend's own policies carry both settings here.
    backend('both', `${authn}      authorization: {policy: {matchExpressions: ['jwt.sub == "alice"']}}\n`),
    route('both', 'both'),
    policy(
      'admins',
      'HTTPRoute',
      'both',
      `  traffic: {authorization: {policy: {matchExpressions: ['"admin" in jwt.roles']}}}`,
    ),
  ].join('---\n');
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
});

describe('backend.mcp authentication and authorization', () => {
  let fixture: HttpFixture;
  let jwks: JwksServer;
  let runtime: ProxyRuntime;
  let base: string;
  let token: (sub: string, roles?: string[]) => Promise<string>;

  beforeAll(async () => {
    const key = await makeSigningKey('k1');
    const privateKey = (await importJWK(key.privateJwk, 'RS256')) as CryptoKey;
    token = (sub, roles = []) =>
      new SignJWT({ sub, roles })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(issuer)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
    jwks = await startJwksServer([key.publicJwk]);
    fixture = await startHttpFixture({ id: 'backend' });
    runtime = new ProxyRuntime({ log: pino({ level: 'silent' }), security: createRouteSecurity() });
    const ir = translatedIr(manifests(Number(new URL(fixture.url).port), jwks.url));
    await runtime.apply(ir);
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await fixture?.close();
    await jwks?.close();
  });

  const init = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: initialize,
    });

  it('answers an anonymous initialize with 401 and a WWW-Authenticate naming the resource metadata (Strict)', async () => {
    const before = fixture.headers.length;
    const res = await init('/strict');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer resource_metadata="http://gw.test/.well-known/oauth-protected-resource/strict"',
    );
    expect(fixture.headers.length).toBe(before);
    const meta = await fetch(`${base}/.well-known/oauth-protected-resource/strict`);
    expect(meta.status).toBe(200);
    expect(((await meta.json()) as { resource: string }).resource).toBe('http://gw.test/strict');
  });

  it('serves a client with a valid token, and rejects a forged one with 401', async () => {
    const { client } = await connectClient(`${base}/strict`, {}, { authorization: `Bearer ${await token('u')}` });
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    expect((await init('/strict', { authorization: 'Bearer a.b.c' })).status).toBe(401);
  });

  it.each(generations)(
    'hides and denies the tools a backend Deny rule names, and serves the others ($generation)',
    async ({ connect }) => {
      const { client } = await connect(`${base}/guarded`);
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toContain('echo');
        expect(names).not.toContain('add');
        // The 1.x client quotes the body (`forbidden`), the 2.4 client the status.
        await expect(client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).rejects.toThrow(/forbidden|HTTP 403/);
        const echoed = (await client.callTool({ name: 'echo', arguments: { text: 'hi' } })) as { content: unknown };
        expect(JSON.stringify(echoed.content)).toContain('hi');
      } finally {
        await client.close();
      }
    },
  );

  it.each(generations)(
    'requires the route rule and the backend rule both to hold (one evaluation, each level on its own; $generation)',
    async ({ open }) => {
      const opened = async (sub?: string, roles: string[] = []) =>
        (await open(`${base}/both`, sub ? { authorization: `Bearer ${await token(sub, roles)}` } : {})).opened.status;
      expect(await opened('alice', ['admin'])).toBe(200);
      expect(await opened('bob', ['admin'])).toBe(403);
      expect(await opened('alice', ['user'])).toBe(403);
      expect(await opened()).toBe(401);
    },
  );
});
