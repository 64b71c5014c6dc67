// traffic.extAuth on an MCP route: every MCP HTTP request (initialize, tools/list, ...) is checked first,
// and with forwardBody the JSON-RPC body the service read still reaches the MCP endpoint. A real stdio MCP
// server is the target and ext-auth-server.ts the authorization service. The policy is set on the IR route
// directly (standalone config has no extAuth); translation is covered by test/translate ext-auth-http.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeSnapshot } from '../../../src/ir/load.js';
import { ProxyRuntime } from '../../../src/proxy/runtime.js';
import { connectClient, snapshotFor, stdioTarget } from '../harness.js';
import { startExtAuthServer, type ExtAuthServer } from './ext-auth-server.js';

describe('external authorization on an MCP route', () => {
  let authz: ExtAuthServer;
  let runtime: ProxyRuntime;
  let url: string;

  beforeAll(async () => {
    authz = await startExtAuthServer();
    const snap = snapshotFor({ targets: [stdioTarget('t')] });
    const policy =
      normalizeSnapshot({
        version: '1',
        resources: [
          {
            route: {
              name: 'x',
              policy: {
                extAuthorization: {
                  url: `http://127.0.0.1:${authz.port}/mcp-check`,
                  allowedRequestHeaders: ['x-user'],
                  forwardBody: true,
                  maxBodyBytes: 65536,
                },
              },
            },
          },
        ],
      }).resources[0]?.route?.policy ?? null;
    for (const r of snap.resources) {
      if (!r.route || !policy) continue;
      if (r.route.policy) r.route.policy.extAuthorization = policy.extAuthorization;
      else r.route.policy = policy;
    }
    runtime = new ProxyRuntime({ log: pino({ level: process.env.TEST_LOG ?? 'silent' }) });
    await runtime.apply(snap);
    url = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}/mcp`;
  });

  afterAll(async () => {
    await runtime?.close();
    await authz?.close();
  });

  it('lets an allowed client use the MCP server, each request checked with its JSON-RPC body', async () => {
    const before = authz.checks.length;
    const { client } = await connectClient(url, {}, { 'x-user': 'alice' });
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    const checks = authz.checks.slice(before);
    expect(
      checks.some((c) => c.method === 'POST' && c.url === '/mcp-check/mcp' && c.body.includes('"initialize"')),
    ).toBe(true);
    expect(checks.some((c) => c.body.includes('"tools/list"'))).toBe(true);
  });

  it("answers a denied client with the service's 403 before MCP starts", async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-user': 'bob' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      }),
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ denied: 'bob' });
    expect(res.headers.get('mcp-session-id')).toBeNull();
  });

  it('checks backend.extAuth (IR backendExtAuthorization) after traffic.extAuth on the same MCP request', async () => {
    const snap = snapshotFor({ targets: [stdioTarget('t')] });
    const policy =
      normalizeSnapshot({
        version: '1',
        resources: [
          {
            route: {
              name: 'x',
              policy: {
                extAuthorization: {
                  url: `http://127.0.0.1:${authz.port}/route-check`,
                  allowedRequestHeaders: ['x-user'],
                },
                backendExtAuthorization: {
                  url: `http://127.0.0.1:${authz.port}/backend-check`,
                  allowedRequestHeaders: ['x-user'],
                },
              },
            },
          },
        ],
      }).resources[0]?.route?.policy ?? null;
    for (const r of snap.resources) if (r.route && policy) r.route.policy = { ...r.route.policy, ...policy };
    await runtime.apply(snap);
    const before = authz.checks.length;
    const { client } = await connectClient(url, {}, { 'x-user': 'alice' });
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    const urls = authz.checks.slice(before).map((c) => c.url);
    expect(urls.slice(0, 2)).toEqual(['/route-check/mcp', '/backend-check/mcp']);
  });
});
