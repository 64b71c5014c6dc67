import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { snapshotFor, textOf, waitFor } from './harness.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';

// Two proxy replicas with a stateless MCP backend in front of one target: any request may go to
// either replica, and neither holds an upstream session between requests.
let upstream: HttpFixture;
const replicas: Array<{ runtime: ProxyRuntime; url: string }> = [];

async function startReplica(): Promise<{ runtime: ProxyRuntime; url: string }> {
  const snapshot = snapshotFor({ targets: [{ name: 'fx', streamableHttp: { url: upstream.url } }] });
  for (const r of snapshot.resources) if (r.backend?.mcp) r.backend.mcp.sessionRouting = 'STATELESS';
  const runtime = new ProxyRuntime({ log: pino({ level: 'silent' }) });
  await runtime.apply(snapshot);
  return { runtime, url: `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}/mcp` };
}

beforeAll(async () => {
  upstream = await startHttpFixture({ id: 'fx', json: true });
  replicas.push(await startReplica(), await startReplica());
});
afterAll(async () => {
  for (const r of replicas) await r.runtime.close();
  await upstream?.close();
});

const headers = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};
const post = (url: string, body: unknown): Promise<Response> =>
  fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });

describe('sessionRouting Stateless', () => {
  it('answers initialize without a session id and serves later calls on any replica without one', async () => {
    const [a, b] = replicas;
    const init = await post(a!.url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeNull();
    expect(await init.text()).toContain('"tools"');
    for (const [i, r] of [a, b, a].entries()) {
      const res = await post(r!.url, {
        jsonrpc: '2.0',
        id: 10 + i,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: `r${i}` } },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('mcp-session-id')).toBeNull();
      expect(await res.text()).toContain(`fx:r${i}`);
    }
  });

  it('holds no upstream session between requests: each one is ended at the target after its answer', async () => {
    const list = await post(replicas[0]!.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }).then((r) => r.text());
    expect(list).toContain('echo');
    await waitFor(() => upstream.sessions() === 0, 2000); // the DELETE goes out just after the answer
    expect(replicas.map((r) => r.runtime.sessions.size)).toEqual([0, 0]);
  });

  it('works with the SDK client, which learns there is no GET stream from the 405', async () => {
    const client = new Client({ name: 'sdk', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(replicas[1]!.url));
    await client.connect(transport);
    expect(transport.sessionId).toBeUndefined();
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'sdk' } }))).toBe('fx:sdk');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
    await client.close();
  });

  it('answers GET and DELETE with 405 and an allow header', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(replicas[0]!.url, { method, headers: { accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(((await res.json()) as { error: string }).error).toBe('method_not_allowed');
    }
  });

  it('answers notifications with 202 without reaching the target', async () => {
    const res = await post(replicas[0]!.url, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(res.status).toBe(202);
  });
});
