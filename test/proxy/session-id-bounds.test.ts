// A client cannot grow its own session id (issue 31): what initialize seals into the id from the client
// (clientInfo, capabilities) is bounded, and an oversized initialize is a JSON-RPC Invalid Request with
// HTTP 400 naming the field, before any session or target is created. Through a real listener.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, stdioTarget, type Started } from './harness.js';

interface RpcAnswer {
  id?: number;
  error?: { code: number; message: string };
}

const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function initialize(
  params: Record<string, unknown>,
): Promise<{ status: number; session: string | null; body: RpcAnswer }> {
  const res = await fetch(proxy.url, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' }, ...params },
    }),
  });
  const text = await res.text();
  const body = res.headers.get('content-type')?.startsWith('application/json') ? (JSON.parse(text) as RpcAnswer) : {};
  return { status: res.status, session: res.headers.get('mcp-session-id'), body };
}

let proxy: Started;
beforeAll(async () => {
  proxy = await startProxy({ targets: [stdioTarget('t')] });
});
afterAll(async () => {
  await proxy?.close();
});

describe('bounded session ids', () => {
  it('refuses a 1 MB client name with Invalid Request and HTTP 400 naming params.clientInfo, and issues no session id', async () => {
    const r = await initialize({ clientInfo: { name: 'x'.repeat(1024 * 1024), version: '1' } });
    expect(r.status).toBe(400);
    expect(r.session).toBeNull();
    expect(r.body.id).toBe(7);
    expect(r.body.error?.code).toBe(-32600);
    expect(r.body.error?.message).toMatch(/params\.clientInfo takes \d+ bytes of JSON; at most 2048/);
  });

  it('refuses oversized capabilities with HTTP 400 naming params.capabilities', async () => {
    const r = await initialize({ capabilities: { experimental: { blob: 'y'.repeat(4096) } } });
    expect(r.status).toBe(400);
    expect(r.body.error?.code).toBe(-32600);
    expect(r.body.error?.message).toContain('params.capabilities');
  });

  it('still accepts a client name near the bound, and that id serves the next request', async () => {
    const r = await initialize({ clientInfo: { name: 'n'.repeat(2000), version: '1' } });
    expect(r.status).toBe(200);
    const session = r.session ?? '';
    expect(session.length).toBeGreaterThan(0);
    expect(session.length).toBeLessThan(8192);
    const list = await fetch(proxy.url, {
      method: 'POST',
      headers: { ...json, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list' }),
    });
    expect(list.status).toBe(200);
    expect(await list.text()).toContain('"tools"');
  });
});
