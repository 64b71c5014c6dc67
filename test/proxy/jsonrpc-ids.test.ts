// JSON-RPC ids and hostile bodies on the MCP endpoint (issue 22): ids are strings or numbers (MCP forbids
// null request ids), and nothing the engine throws while reading a body reaches the client as text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, stdioTarget, type Started } from './harness.js';

let proxy: Started;
const headers = { 'content-type': 'application/json', accept: 'application/json' };

beforeAll(async () => {
  proxy = await startProxy({ targets: [stdioTarget('t')] });
});
afterAll(async () => {
  await proxy?.close();
});

function post(body: string, extra: Record<string, string> = {}): Promise<Response> {
  return fetch(proxy.url, { method: 'POST', headers: { ...headers, ...extra }, body });
}

async function session(): Promise<string> {
  const res = await post(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'ids', version: '1' } },
    }),
  );
  expect(res.status).toBe(200);
  return res.headers.get('mcp-session-id') ?? '';
}

describe('JSON-RPC ids', () => {
  it.each([
    ['an object', { a: 1 }],
    ['a list', [1]],
    ['a boolean', true],
    ['null', null],
  ])('rejects a request whose id is %s with -32600 and echoes no id', async (_, id) => {
    const res = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as { id: unknown; error: { code: number } };
    expect(body.error.code).toBe(-32600);
    expect(body.id).toBeNull();
  });

  it('serves string and number ids and echoes them unchanged', async () => {
    const id = await session();
    for (const rid of ['a-1', 7]) {
      const res = await post(JSON.stringify({ jsonrpc: '2.0', id: rid, method: 'ping' }), { 'mcp-session-id': id });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { id: unknown }).id).toBe(rid);
    }
  });
});

describe('hostile bodies', () => {
  it('refuses a 100,000-deep value with -32600 before anything recurses over it, never with engine text', async () => {
    const id = await session();
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const res = await post(
      `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"x":${deep}}}}`,
      { 'mcp-session-id': id },
    );
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toMatch(/stack|Maximum|RangeError/i);
    expect(JSON.parse(text)).toMatchObject({
      id: null,
      error: { code: -32600, message: 'Invalid Request: values may nest at most 128 levels deep' },
    });
  });

  it('still serves a value nested 100 levels deep', async () => {
    const id = await session();
    const deep = `${'['.repeat(100)}${']'.repeat(100)}`;
    const res = await post(`{"jsonrpc":"2.0","id":4,"method":"ping","params":{"_meta":{"x":${deep}}}}`, {
      'mcp-session-id': id,
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { result?: unknown }).result).toEqual({});
  });

  it('counts brackets inside strings as text', async () => {
    const id = await session();
    const res = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping', params: { _meta: { s: '['.repeat(1000) + '\\"' } } }),
      { 'mcp-session-id': id },
    );
    expect(res.status).toBe(200);
  });
});

describe('what a client reads about a failed target call', () => {
  it('keeps the transport description and a network error code, and hides a fault in the proxy', async () => {
    const { targetFailureText } = await import('../../src/proxy/mcp/jsonrpc.js');
    expect(targetFailureText(new Error('the target closed the stream before answering'))).toBe(
      'the target closed the stream before answering',
    );
    expect(targetFailureText(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }))).toBe(
      'other side closed (UND_ERR_SOCKET)',
    );
    expect(targetFailureText(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBeUndefined();
    expect(targetFailureText('a string')).toBeUndefined();
  });
});
