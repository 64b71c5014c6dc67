import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startProxy, textOf, waitFor, type Started } from './harness.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';

// A hand-written streamable-HTTP target (JSON responses) that records every message it receives, so
// the tests can see exactly what the proxy's direct call path sends: ids, headers, cancellations.
interface Recorded {
  body: Record<string, unknown>;
  headers: Record<string, unknown>;
}
let raw: Server;
let rawUrl = '';
const received: Recorded[] = [];

function startRecordingTarget(): Promise<void> {
  raw = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => {
      text += c.toString();
    });
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const body = JSON.parse(text) as Record<string, unknown>;
      received.push({ body, headers: req.headers });
      const json = (status: number, value: unknown, headers: Record<string, string> = {}): void => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
      };
      if (!('id' in body)) return void res.writeHead(202).end();
      const params = (body.params ?? {}) as Record<string, unknown>;
      if (body.method === 'initialize') {
        return json(
          200,
          {
            jsonrpc: '2.0',
            id: body.id,
            result: {
              protocolVersion: params.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: 'rec', version: '1' },
            },
          },
          { 'mcp-session-id': 'rec-session' },
        );
      }
      if (body.method === 'tools/list')
        return json(200, {
          jsonrpc: '2.0',
          id: body.id,
          result: {
            tools: ['echo', 'hang', 'boom', 'refuse'].map((name) => ({ name, inputSchema: { type: 'object' } })),
          },
        });
      if (body.method !== 'tools/call')
        return json(200, { jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'no' } });
      const name = params.name;
      if (name === 'echo')
        return json(200, {
          jsonrpc: '2.0',
          id: body.id,
          result: {
            content: [{ type: 'text', text: `rec:${String((params.arguments as Record<string, unknown>).text)}` }],
          },
        });
      if (name === 'boom')
        return json(200, {
          jsonrpc: '2.0',
          id: body.id,
          error: { code: -32050, message: 'boom happened', data: { why: 'test' } },
        });
      if (name === 'refuse') return void res.writeHead(503, { 'content-type': 'text/plain' }).end('overloaded');
      // hang: never answered; the proxy has to give up on it.
    });
  });
  return new Promise((resolve) =>
    raw.listen(0, '127.0.0.1', () => {
      rawUrl = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/mcp`;
      resolve();
    }),
  );
}

let proxy: Started;
let json: HttpFixture;

beforeAll(async () => {
  await startRecordingTarget();
  json = await startHttpFixture({ id: 'js', json: true });
  proxy = await startProxy({
    targets: [
      { name: 'rec', streamableHttp: { url: rawUrl } },
      { name: 'js', streamableHttp: { url: json.url } },
    ],
  });
});
afterAll(async () => {
  await proxy?.close();
  await json?.close();
  raw?.closeAllConnections();
  await new Promise<void>((resolve) => raw?.close(() => resolve()));
});

describe('calls to streamable-HTTP targets', () => {
  it('sends the target session id and protocol version with each call and returns the result', async () => {
    const { client } = await connectClient(proxy.url);
    expect(textOf(await client.callTool({ name: 'rec_echo', arguments: { text: 'hi' } }))).toBe('rec:hi');
    expect(textOf(await client.callTool({ name: 'js_echo', arguments: { text: 'hi' } }))).toBe('js:hi');
    const call = received.find((r) => r.body.method === 'tools/call');
    expect(call?.headers['mcp-session-id']).toBe('rec-session');
    expect(call?.headers['mcp-protocol-version']).toBe('2025-11-25');
    expect(call?.body.params).toEqual({ name: 'echo', arguments: { text: 'hi' } });
    await client.close();
  });

  it('passes a JSON-RPC error from the target through with its code and data', async () => {
    const { client } = await connectClient(proxy.url);
    const res = await rawCall(client, 'application/json', 7, { name: 'rec_boom' });
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32050, message: 'target rec: boom happened', data: { why: 'test' } },
    });
    await client.close();
  });

  it('answers an HTTP failure of the target as an internal error naming the target and counts it', async () => {
    const { client } = await connectClient(proxy.url);
    await expect(client.callTool({ name: 'rec_refuse' })).rejects.toThrow(/target rec: .*HTTP 503.*overloaded/);
    const metrics = await proxy.runtime.metrics.registry.metrics();
    expect(metrics).toMatch(/gw_mcp_target_failures_total\{target="rec",phase="tools\/call"\} 1/);
    await client.close();
  });

  it('tells the target when the client cancels a call in flight', async () => {
    const { client } = await connectClient(proxy.url);
    const ac = new AbortController();
    const call = client.callTool({ name: 'rec_hang' }, undefined, { signal: ac.signal });
    await waitFor(() => received.some((r) => (r.body.params as Record<string, unknown> | undefined)?.name === 'hang'));
    ac.abort('changed my mind');
    await expect(call).rejects.toThrow();
    const hang = received.find((r) => (r.body.params as Record<string, unknown> | undefined)?.name === 'hang');
    await waitFor(() => received.some((r) => r.body.method === 'notifications/cancelled'));
    const cancelled = received.find((r) => r.body.method === 'notifications/cancelled');
    expect((cancelled?.body.params as Record<string, unknown>).requestId).toBe(hang?.body.id);
    expect(textOf(await client.callTool({ name: 'rec_echo', arguments: { text: 'after' } }))).toBe('rec:after');
    await client.close();
  });

  it('answers a quick 2025-11-25 call on SSE with a content length and no priming event', async () => {
    const { client } = await connectClient(proxy.url);
    const res = await rawCall(client, 'application/json, text/event-stream', 8, {
      name: 'js_echo',
      arguments: { text: 'sse' },
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('transfer-encoding')).toBeNull();
    const text = await res.text();
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(text).toMatch(/^id: \d+-\d+\nevent: message\ndata: .*js:sse.*\n\n$/);
    await client.close();
  });

  it('primes a 2025-11-25 call stream (an id, no data) once the call runs past 100 ms', async () => {
    const { client } = await connectClient(proxy.url);
    const res = await rawCall(client, 'application/json, text/event-stream', 9, {
      name: 'js_slow',
      arguments: { steps: 1, ms: 300 },
    });
    const text = await res.text();
    expect(text).toMatch(/^id: (\d+)-(\d+)\ndata: \n\nid: \1-\d+\nevent: message\ndata: .*done 1.*\n\n$/);
    await client.close();
  });
});

/** A tools/call on the client's session, sent by hand so the test sees the raw HTTP answer. */
function rawCall(
  client: Awaited<ReturnType<typeof connectClient>>['client'],
  accept: string,
  id: number,
  params: Record<string, unknown>,
): Promise<Response> {
  const session = (client.transport as { sessionId?: string } | undefined)?.sessionId;
  if (!session) throw new Error('client has no session');
  return fetch(proxy.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, 'mcp-session-id': session },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
  });
}
