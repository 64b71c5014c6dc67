// GwPolicy backend.auth on non-AI edges, translated and served by the real runtime: the upstream sees
// the credential the policy names; an edge whose credential cannot be resolved is refused, never
// called without it. Upstreams are real loopback servers; the MCP target is the SDK fixture server
// behind a loopback front that requires the bearer key.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { connectClient, textOf } from './harness.js';
import { log, rawRequest, startUpstream, type Upstream } from './http-forward-harness.js';
import { GATEWAY_WEB, httpRoute, translatedIr } from './translated-ir.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function manifests(httpPort: number, mcpPort: number): string {
  const backend = (name: string, spec: string): string => `---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  ${spec}
`;
  const route = (name: string, prefix: string): string => httpRoute(name, { prefix });
  const policy = (name: string, auth: string): string => `---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: ${name}-auth, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: ${name}}]
  backend:
    auth: ${auth}
`;
  const at = `static: {host: 127.0.0.1, port: ${httpPort}}`;
  return `${GATEWAY_WEB}---
apiVersion: v1
kind: Secret
metadata: {name: upstream, namespace: default}
data: {Authorization: ${b64('secret-from-ref\n')}}
${backend('inline', at)}${route('inline', '/inline')}${policy('inline', '{key: inline-upstream-key}')}
${backend('ref', at)}${route('ref', '/ref')}${policy('ref', '{secretRef: {name: upstream}}')}
${backend('pass', at)}${route('pass', '/pass')}${policy('pass', '{passthrough: {}}')}
${backend('missing', at)}${route('missing', '/missing')}${policy('missing', '{secretRef: {name: no-such-secret}}')}
${backend('azure', at)}${route('azure', '/azure')}${policy('azure', '{azure: {secretRef: {name: upstream}}}')}
${backend('plain', at)}${route('plain', '/plain')}
${backend(
  'tools',
  `mcp:
    targets:
    - name: t
      static: {host: 127.0.0.1, port: ${mcpPort}, path: /mcp}`,
)}${route('tools', '/mcp')}${policy('tools', '{key: mcp-upstream-key}')}`;
}

/** A loopback front for the MCP fixture that answers 401 unless the request carries `Bearer mcp-upstream-key`. */
async function startKeyedFront(
  fixture: HttpFixture,
  seen: (string | undefined)[],
): Promise<{ port: number; close(): Promise<void> }> {
  const to = new URL(fixture.url);
  const server: Server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    if (req.headers.authorization !== 'Bearer mcp-upstream-key') {
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_token"}');
      return;
    }
    const up = request(
      { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('backend.auth on HTTP and MCP edges, translated and served', () => {
  let upstream: Upstream;
  let fixture: HttpFixture;
  let front: { port: number; close(): Promise<void> };
  let runtime: ProxyRuntime;
  let base: string;
  const frontSaw: (string | undefined)[] = [];

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ authorization: req.headers.authorization ?? null }));
    });
    fixture = await startHttpFixture({ id: 'keyed' });
    front = await startKeyedFront(fixture, frontSaw);
    runtime = new ProxyRuntime({ log });
    await runtime.apply(translatedIr(manifests(upstream.port, front.port)));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await front?.close();
    await fixture?.close();
    await upstream?.close();
  });

  const authorizationSeen = async (path: string, headers: Record<string, string> = {}): Promise<unknown> => {
    const res = await rawRequest(`${base}${path}`, { headers });
    expect(res.status).toBe(200);
    return (JSON.parse(res.body) as { authorization: unknown }).authorization;
  };

  it('sends an inline key as a bearer token, replacing the client Authorization', async () => {
    expect(await authorizationSeen('/inline/x', { authorization: 'Bearer client-token' })).toBe(
      'Bearer inline-upstream-key',
    );
  });

  it('sends the key of the Secret secretRef names, trimmed', async () => {
    expect(await authorizationSeen('/ref/x')).toBe('Bearer secret-from-ref');
  });

  it('passes the client bearer token through, and refuses a request that carries none with 401', async () => {
    expect(await authorizationSeen('/pass/x', { authorization: 'Bearer client-token' })).toBe('Bearer client-token');
    const res = await rawRequest(`${base}/pass/x`);
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'invalid_token' });
  });

  it('leaves the client Authorization as it is on an edge without backend.auth', async () => {
    expect(await authorizationSeen('/plain/x', { authorization: 'Bearer client-token' })).toBe('Bearer client-token');
  });

  it('refuses an edge whose Secret is missing or whose auth kind it cannot apply with 500 credential_missing, naming no key', async () => {
    for (const path of ['/missing/x', '/azure/x']) {
      const res = await rawRequest(`${base}${path}`, { headers: { authorization: 'Bearer client-token' } });
      expect(res.status).toBe(500);
      expect(JSON.parse(res.body)).toMatchObject({ error: 'credential_missing' });
      expect(res.body).not.toContain('secret-from-ref');
    }
  });

  it('sends the MCP edge key on every request to the remote target, so a keyed target serves the session', async () => {
    const { client } = await connectClient(`${base}/mcp`);
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('keyed:hi');
      await client.listTools();
    } finally {
      await client.close();
    }
    expect(frontSaw.length).toBeGreaterThanOrEqual(3);
    expect(frontSaw.every((a) => a === 'Bearer mcp-upstream-key')).toBe(true);
  });
});
