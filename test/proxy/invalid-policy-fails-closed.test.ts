// Issue 31, "one rule, everywhere": a GwPolicy or GwBackend that is invalid (here: a CEL rule the proxy cannot
// compile) but sets security fields keeps its attachment, so what it targets refuses traffic (503
// policy_not_enforced, or a closed connection for networkAuthorization) instead of serving without it.
// Translated from manifests with the invalid objects left in, served by a real runtime on 127.0.0.1, with a
// real JWKS server, a counting HTTP upstream and a real streamable-HTTP MCP target. Before issue 31 the
// invalid objects were dropped and every request below was served (200, tools callable).
import { request } from 'node:http';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { makeSigningKey } from '../support/oidc/provider.js';
import { startJwksServer, type JwksServer } from '../support/oidc/jwks-server.js';
import { log, rawRequest, startUpstream, type Upstream } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { frontendPolicy, mcpBackendManifest, trafficManifests } from './traffic-manifests.js';

const badRule = `{policy: {matchExpressions: ['tenant == "a"']}}`;

/** HTTPRoute `name` at /`name` to GwBackend `backend`, and GwPolicy `name` on it with `body` (YAML lines). */
function routeWithPolicy(name: string, backend: string, body: string): string {
  return `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ${name}, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - {matches: [{path: {type: PathPrefix, value: /${name}}}], backendRefs: [{group: gw.dev, kind: GwBackend, name: ${backend}}]}
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: ${name}, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: ${name}}]
${body}
`;
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
});
const callAdd = JSON.stringify({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'add', arguments: { a: 1, b: 2 } },
});

describe('an invalid policy with security settings closes what it targets', () => {
  let upstream: Upstream;
  let fixture: HttpFixture;
  let jwks: JwksServer;
  let runtime: ProxyRuntime;
  let base: string;
  let hits = 0;
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    upstream = await startUpstream((_req, res) => {
      hits++;
      res.writeHead(200).end('backend');
    });
    fixture = await startHttpFixture({ id: 'closed' });
    const key = await makeSigningKey('k1');
    jwks = await startJwksServer([key.publicJwk]);
    const jwt = `jwtAuthentication: {providers: [{issuer: "https://issuer.test", jwks: {remote: {url: "${jwks.url}"}}}]}`;
    const mcpPort = Number(new URL(fixture.url).port);
    const extra = [
      mcpBackendManifest('tools', mcpPort),
      routeWithPolicy('mcp-open', 'tools', '  traffic: {cors: {allowOrigins: ["*"]}}'),
      routeWithPolicy('mcp-bad', 'tools', `  backend: {mcp: {authorization: ${badRule}}}`),
      `
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: bad-tools, namespace: default}
spec:
  mcp:
    targets: [{name: t, static: {host: 127.0.0.1, port: ${mcpPort}, path: /mcp}}]
  policies:
    mcp: {authorization: ${badRule}}
`,
      routeWithPolicy('mcp-bad-backend', 'bad-tools', '  traffic: {cors: {allowOrigins: ["*"]}}'),
    ].join('---\n');
    const manifests = trafficManifests(
      upstream.port,
      [
        { name: 'jwt-bad', traffic: `{${jwt}, authorization: ${badRule}}` },
        {
          name: 'allow-bad',
          traffic: `{authorization: {action: Allow, policy: {matchExpressions: ['tenant == "a"']}}}`,
        },
        { name: 'open', traffic: '{timeouts: {request: 5s}}' },
        // A misspelt security field: the object is invalid and meant to authenticate.
        { name: 'jwt-typo', traffic: `{${jwt.replace('jwtAuthentication', 'jwtAuthentcation')}}` },
      ],
      extra,
    );
    const invalid = [
      'GwPolicy default/jwt-bad',
      'GwPolicy default/allow-bad',
      'GwPolicy default/mcp-bad',
      'GwPolicy default/jwt-typo',
    ];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    runtime = new ProxyRuntime({ log: pino({ level: 'info' }, sink), security: createRouteSecurity() });
    await runtime.apply(translatedIr(manifests, 'default/web', {}, [...invalid, 'GwBackend default/bad-tools']));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
    await fixture?.close();
    await jwks?.close();
  });

  const refusedBody = (body: string): { error: string; error_description: string } =>
    JSON.parse(body) as { error: string; error_description: string };

  it('answers 503 policy_not_enforced on a JWT route whose authorization rule does not compile, with no token and with a garbage one', async () => {
    for (const headers of [{}, { authorization: 'Bearer not.a.token' }] as Record<string, string>[]) {
      const before = hits;
      const res = await rawRequest(`${base}/jwt-bad/x`, { headers });
      expect(res.status).toBe(503);
      const body = refusedBody(res.body);
      expect(body.error).toBe('policy_not_enforced');
      expect(body.error_description).toContain('spec.traffic.authorization');
      expect(body.error_description).toContain('spec.traffic.jwtAuthentication');
      expect(hits).toBe(before);
    }
  });

  it('answers 503 on a route whose only setting is an Allow rule that does not compile', async () => {
    const before = hits;
    const res = await rawRequest(`${base}/allow-bad`);
    expect(res.status).toBe(503);
    expect(refusedBody(res.body).error_description).toContain('spec.traffic.authorization');
    expect(hits).toBe(before);
  });

  it('answers 503 on a route whose policy misspells jwtAuthentication, naming the typo and the field it closes', async () => {
    const before = hits;
    const res = await rawRequest(`${base}/jwt-typo`);
    expect(res.status).toBe(503);
    const body = refusedBody(res.body);
    expect(body.error).toBe('policy_not_enforced');
    expect(body.error_description).toContain('spec.traffic.jwtAuthentication');
    expect(hits).toBe(before);
    // The log (like the statuses, test/translate/invalid-objects.test.ts) says which spelling it took for which.
    const logged = lines.find(
      (l) => String(l.msg).includes('does not enforce') && String(l.route).includes('jwt-typo'),
    );
    expect(logged?.refusals).toEqual([
      expect.objectContaining({
        field: 'spec.traffic.jwtAuthentication',
        reason: expect.stringContaining('spec.traffic.jwtAuthentcation is taken as spec.traffic.jwtAuthentication'),
      }),
    ]);
  });

  it('still serves the routes no invalid object reaches', async () => {
    const res = await rawRequest(`${base}/open`);
    expect(res.status).toBe(200);
    expect(res.body).toBe('backend');
  });

  it.each(['mcp-bad', 'mcp-bad-backend'])(
    'refuses every MCP call on %s, where backend.mcp.authorization does not compile, before it reaches the target',
    async (route) => {
      const before = fixture.headers.length;
      for (const body of [initialize, callAdd]) {
        const res = await rawRequest(`${base}/${route}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body,
        });
        expect(res.status).toBe(503);
        expect(refusedBody(res.body).error_description).toContain('mcp.authorization');
      }
      expect(fixture.headers.length).toBe(before);
    },
  );

  it('serves the same MCP backend on a route no invalid object reaches', async () => {
    const res = await fetch(`${base}/mcp-open`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: initialize,
    });
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });

  it('logs each closed route once with the invalid object and field, not once per request', async () => {
    for (let i = 0; i < 3; i++) await rawRequest(`${base}/allow-bad`);
    const refused = lines.filter((l) => String(l.msg).includes('does not enforce'));
    const ofRoute = refused.filter((l) => String(l.route).includes('allow-bad'));
    expect(ofRoute).toHaveLength(1);
    expect(ofRoute[0]?.refusals).toEqual([
      expect.objectContaining({ field: 'spec.traffic.authorization', source: 'GwPolicy default/allow-bad' }),
    ]);
    expect(refused.some((l) => String(l.route).includes('jwt-bad'))).toBe(true);
  });
});

/** GET / from 127.0.0.1: the status, or the socket error code when the connection was closed. */
function get(port: number): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/app', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end();
  });
}

describe('an invalid networkAuthorization policy', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime;

  beforeAll(async () => {
    upstream = await startUpstream((_req, res) => res.writeHead(200).end('backend'));
    runtime = new ProxyRuntime({ log });
    const bad = frontendPolicy(`{networkAuthorization: {policy: {matchExpressions: ['jwt.sub == "a"']}}}`, 'net');
    await runtime.apply(
      translatedIr(trafficManifests(upstream.port, [{ name: 'app', traffic: '{}' }], bad), 'default/web', {}, [
        'GwPolicy default/net',
      ]),
    );
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
  });

  it('closes every connection of its listener before any HTTP byte', async () => {
    expect(await get(Object.values(runtime.boundPorts())[0] as number)).toBe('ECONNRESET');
  });
});
