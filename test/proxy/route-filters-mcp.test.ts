// Route filters on an MCP route: the proxy terminates MCP, so the request header modifier changes what
// the endpoint and authorization rules see (targets get the proxy's own requests), and the response
// header modifier applies to the proxy's own MCP responses. A real stdio MCP server is the target.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { normalizeSnapshot } from '../../src/ir/load.js';
import type { AuthorizeContext } from '../../src/proxy/auth/hooks.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { connectClient, snapshotFor, stdioTarget } from './harness.js';

describe('route filters on an MCP route', () => {
  let runtime: ProxyRuntime;
  let url: string;
  const seen: AuthorizeContext[] = [];

  beforeAll(async () => {
    const snap = snapshotFor({ targets: [stdioTarget('t')] });
    const filters =
      normalizeSnapshot({
        version: '1',
        resources: [
          {
            route: {
              name: 'x',
              filters: {
                requestHeaders: { set: [{ name: 'x-tenant', value: 'blue' }], remove: ['x-debug'] },
                responseHeaders: { add: [{ name: 'x-gw', value: 'yes' }] },
              },
            },
          },
        ],
      }).resources[0]?.route?.filters ?? null;
    for (const r of snap.resources) if (r.route) r.route.filters = filters;
    runtime = new ProxyRuntime({
      log: pino({ level: process.env.TEST_LOG ?? 'silent' }),
      security: () => ({
        authorize: (ctx) => {
          seen.push(ctx);
          return true;
        },
      }),
    });
    await runtime.apply(snap);
    url = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}/mcp`;
  });

  afterAll(async () => {
    await runtime?.close();
  });

  it('shows authorization rules the modified request headers', async () => {
    const { client } = await connectClient(url, {}, { 'x-debug': '1', 'x-tenant': 'red' });
    try {
      const tools = await client.listTools();
      expect(tools.tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    expect(seen.length).toBeGreaterThan(0);
    for (const ctx of seen) {
      expect(ctx.request.headers['x-tenant']).toBe('blue');
      expect(ctx.request.headers['x-debug']).toBeUndefined();
    }
  });

  it('adds response headers to the proxy’s MCP answers and errors', async () => {
    const init = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      }),
    });
    await init.arrayBuffer();
    expect(init.status).toBe(200);
    expect(init.headers.get('x-gw')).toBe('yes');
    expect(init.headers.get('mcp-session-id')).toBeTruthy();
    const wrongType = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', accept: 'application/json' },
      body: '{}',
    });
    expect(wrongType.status).toBe(415);
    expect(wrongType.headers.get('x-gw')).toBe('yes');
  });
});
