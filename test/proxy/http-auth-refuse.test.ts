// Fail closed: a route whose GwPolicy asks for authentication or authorization this proxy does not enforce
// answers 503 policy_not_enforced and never reaches the backend. Translated from manifests, served for real.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { rawRequest, startUpstream, type Upstream } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests } from './traffic-manifests.js';

describe('routes with unenforced authentication policies', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let base: string;
  let hits = 0;
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const log = pino({ level: 'info' }, sink);

  beforeAll(async () => {
    upstream = await startUpstream((_req, res) => {
      hits++;
      res.writeHead(200).end('backend');
    });
    runtime = new ProxyRuntime({ log, security: createRouteSecurity() });
    await runtime.apply(
      translatedIr(
        trafficManifests(upstream.port, [
          // An extAuth whose service does not resolve (a missing Service) cannot be enforced (test/proxy/auth/ext-auth*.test.ts for the rest).
          { name: 'extauth', traffic: '{extAuth: {backendRef: {name: missing-authz, port: 9000}, grpc: {}}}' },
          // A processor URL that is not gRPC (an unreachable one fails closed with 500: test/proxy/ext-proc.test.ts).
          { name: 'extproc', traffic: '{extProc: {url: "http://127.0.0.1:1"}}' },
          { name: 'apikey', traffic: '{apiKeyAuthentication: {secretRef: {name: keys}}}' },
          { name: 'open', traffic: '{timeouts: {request: 5s}}' },
          {
            name: 'combined',
            traffic:
              '{basicAuthentication: {users: ["alice:{SHA}87u9ZqY9S/F0eUBXjsPQEDUw4h0="]}, jwtAuthentication: {providers: [{issuer: "https://a.example", jwks: {remote: {url: "http://127.0.0.1:1/jwks"}}}]}}',
          },
        ]),
      ),
    );
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
  });

  it.each(['extauth', 'extproc', 'apikey'])(
    'answers 503 policy_not_enforced on route %s and never forwards',
    async (name) => {
      const before = hits;
      const res = await rawRequest(`${base}/${name}/x`, { method: 'POST', body: 'payload' });
      expect(res.status).toBe(503);
      const body = JSON.parse(res.body) as { error: string; error_description: string };
      expect(body.error).toBe('policy_not_enforced');
      expect(body.error_description).toMatch(
        /^route .+ has spec\.traffic\.\w+, which this proxy does not enforce yet$/,
      );
      expect(hits).toBe(before);
    },
  );

  it('names the unenforced field in the error', async () => {
    const res = await rawRequest(`${base}/apikey`);
    expect(JSON.parse(res.body).error_description).toContain('traffic.apiKeyAuthentication');
  });

  it('refuses a route that combines two authentication methods, naming the second', async () => {
    const res = await rawRequest(`${base}/combined/x`, { headers: { authorization: 'Basic YWxpY2U6aHVudGVyMg==' } });
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body).error_description).toContain('spec.traffic.basicAuthentication');
  });

  it('refuses routes with JWT or authorization when the runtime has no route security factory', async () => {
    const bare = new ProxyRuntime({ log });
    await bare.apply(
      translatedIr(
        trafficManifests(upstream.port, [
          { name: 'authz', traffic: `{authorization: {policy: {matchExpressions: ['request.method == "GET"']}}}` },
        ]),
      ),
    );
    try {
      const res = await rawRequest(`http://127.0.0.1:${Object.values(bare.boundPorts())[0]}/authz`);
      expect(res.status).toBe(503);
      expect(JSON.parse(res.body).error_description).toContain('traffic.authorization');
    } finally {
      await bare.close();
    }
  });

  it('still forwards routes whose policy has no unenforced auth field', async () => {
    const res = await rawRequest(`${base}/open`);
    expect(res.status).toBe(200);
    expect(res.body).toBe('backend');
  });

  it('logs each refusing route once, also after the same snapshot is applied again and requests keep coming', async () => {
    await runtime.apply(
      translatedIr(
        trafficManifests(upstream.port, [
          { name: 'apikey', traffic: '{apiKeyAuthentication: {secretRef: {name: keys}}}' },
        ]),
      ),
    );
    await rawRequest(`${base}/apikey`);
    const refused = lines.filter((l) => typeof l.msg === 'string' && l.msg.includes('does not enforce'));
    const routes = refused.map((l) => l.route as string);
    expect(routes.filter((r) => r.includes('apikey'))).toHaveLength(1);
    expect(routes.filter((r) => r.includes('extauth'))).toHaveLength(1);
    expect(new Set(routes).size).toBe(routes.length);
  });
});
