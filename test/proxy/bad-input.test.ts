import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, stdioTarget, type Started } from './harness.js';

let proxy: Started;
const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const jsonOnly = { 'content-type': 'application/json', accept: 'application/json' };

beforeAll(async () => {
  proxy = await startProxy({ targets: [stdioTarget('t')] });
});
afterAll(async () => {
  await proxy?.close();
});

function post(body: unknown, headers: Record<string, string> = jsonOnly): Promise<Response> {
  return fetch(proxy.url, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

async function initialize(version = '2025-06-18'): Promise<{ session: string; body: Record<string, unknown> }> {
  const res = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  expect(res.status).toBe(200);
  return { session: res.headers.get('mcp-session-id') ?? '', body: (await res.json()) as Record<string, unknown> };
}

describe('bad input on the MCP endpoint', () => {
  it('answers malformed JSON with JSON-RPC -32700', async () => {
    const res = await post('{"jsonrpc": "2.0", "id": 1,');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it('answers a request without a session with 400 and an unknown session with 404', async () => {
    const missing = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      error: 'bad_request',
      error_description: 'the mcp-session-id header is required after initialize',
    });
    const unknown = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { ...jsonOnly, 'mcp-session-id': 'no-such-session' },
    );
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: string }).error).toBe('not_found');
  });

  it('answers an unacceptable Accept with 406 and a wrong content type with 415', async () => {
    expect(
      (
        await post(
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          { 'content-type': 'application/json', accept: 'text/plain' },
        )
      ).status,
    ).toBe(406);
    expect(
      (
        await post(
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          { 'content-type': 'text/plain', accept: 'application/json' },
        )
      ).status,
    ).toBe(415);
  });

  it('answers a body over the 2 MiB default with 413', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(2 * 1024 * 1024) } });
    const res = await post(big);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: string }).error).toBe('payload_too_large');
  });

  it('rejects something that is JSON but not JSON-RPC with -32600', async () => {
    const res = await post({ hello: 'world' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32600);
  });

  it('answers other methods with 405 and other paths with 404 naming where MCP is served', async () => {
    expect((await fetch(proxy.url, { method: 'PUT' })).status).toBe(405);
    const res = await fetch(new URL('/elsewhere', proxy.url));
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error_description: string }).error_description).toBe(
      `no route for /elsewhere; MCP is served at ${new URL(proxy.url).pathname} on this listener`,
    );
  });
});

describe('streamable HTTP protocol details', () => {
  it('negotiates each supported version and offers the latest otherwise', async () => {
    for (const v of ['2025-03-26', '2025-06-18', '2025-11-25']) {
      expect(((await initialize(v)).body.result as { protocolVersion: string }).protocolVersion).toBe(v);
    }
    expect(((await initialize('1999-01-01')).body.result as { protocolVersion: string }).protocolVersion).toBe(
      '2025-11-25',
    );
  });

  it('rejects an unsupported mcp-protocol-version header with 400', async () => {
    const { session } = await initialize();
    const res = await post(
      { jsonrpc: '2.0', id: 3, method: 'ping' },
      { ...jsonOnly, 'mcp-session-id': session, 'mcp-protocol-version': '1999-01-01' },
    );
    expect(res.status).toBe(400);
  });

  it('answers JSON when only JSON is accepted and SSE when the client accepts a stream', async () => {
    const { session } = await initialize();
    const plain = await post({ jsonrpc: '2.0', id: 4, method: 'ping' }, { ...jsonOnly, 'mcp-session-id': session });
    expect(plain.headers.get('content-type')).toBe('application/json');
    expect(await plain.json()).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
    const sse = await post({ jsonrpc: '2.0', id: 5, method: 'ping' }, { ...json, 'mcp-session-id': session });
    expect(sse.headers.get('content-type')).toBe('text/event-stream');
    // 2025-06-18 has no priming event: the lone answer carries the stream's event id and a content length.
    expect(sse.headers.get('transfer-encoding')).toBeNull();
    expect(await sse.text()).toBe('id: 1-1\nevent: message\ndata: {"jsonrpc":"2.0","id":5,"result":{}}\n\n');
  });

  it('accepts batches only when the negotiated version allows them', async () => {
    const old = await initialize('2025-03-26');
    const batch = [
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 'b', method: 'ping' },
    ];
    const ok = await post(batch, { ...jsonOnly, 'mcp-session-id': old.session });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual([
      { jsonrpc: '2.0', id: 'a', result: {} },
      { jsonrpc: '2.0', id: 'b', result: {} },
    ]);
    const current = await initialize('2025-06-18');
    const refused = await post(batch, { ...jsonOnly, 'mcp-session-id': current.session });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(-32600);
  });

  it('answers notifications with 202 and no body', async () => {
    const { session } = await initialize();
    const res = await post(
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { ...jsonOnly, 'mcp-session-id': session },
    );
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
  });

  it('opens one GET stream per session, needs text/event-stream, and ends the session on DELETE', async () => {
    const { session } = await initialize();
    expect(
      (await fetch(proxy.url, { headers: { accept: 'application/json', 'mcp-session-id': session } })).status,
    ).toBe(406);
    const ac = new AbortController();
    const stream = await fetch(proxy.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': session },
      signal: ac.signal,
    });
    expect(stream.status).toBe(200);
    expect(
      (await fetch(proxy.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session } })).status,
    ).toBe(409);
    ac.abort();
    expect((await fetch(proxy.url, { method: 'DELETE', headers: { 'mcp-session-id': session } })).status).toBe(200);
    const after = await post({ jsonrpc: '2.0', id: 6, method: 'ping' }, { ...jsonOnly, 'mcp-session-id': session });
    expect(after.status).toBe(404);
  });
});
