import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startProxy, textOf, waitFor, type Started } from './harness.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';

let upstream: HttpFixture;
let proxy: Started;

beforeAll(async () => {
  upstream = await startHttpFixture({ id: 'fx' });
  proxy = await startProxy({ targets: [{ name: 'fx', streamableHttp: { url: upstream.url } }] });
});
afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

const sse = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A session opened by hand at `version`, so the test sees the raw streams. */
async function session(version = '2025-11-25'): Promise<Record<string, string>> {
  const res = await fetch(proxy.url, {
    method: 'POST',
    headers: sse,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  const id = res.headers.get('mcp-session-id') ?? '';
  await res.text();
  const headers = { ...sse, 'mcp-session-id': id, 'mcp-protocol-version': version };
  await fetch(proxy.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  return headers;
}

/** Reads SSE text from a response until `until` matches, then drops the connection (the client's side of a cut). */
async function readUntil(res: Response, until: RegExp): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!until.test(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text;
}

const ids = (text: string): string[] => [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1] ?? '');

describe('client streams with event ids and Last-Event-ID', () => {
  it('lets the SDK client resume a call whose POST stream was cut and still get its answer and every progress event', async () => {
    let cut = false;
    const resumedWith: string[] = [];
    // The network cut is simulated in the client's fetch (the one fake here): the POST of the slow
    // call loses its body after the first chunk (the priming event); everything else is real.
    const cuttingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const last = new Headers(init?.headers).get('last-event-id');
      if (last) resumedWith.push(last);
      const res = await fetch(input, init);
      if (cut || init?.method !== 'POST' || !String(init.body).includes('"slow"')) return res;
      cut = true;
      const reader = res.body!.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { value } = await reader.read();
          if (value) controller.enqueue(value);
          await reader.cancel();
          controller.error(new Error('connection reset (simulated)'));
        },
      });
      return new Response(body, { status: res.status, headers: res.headers });
    };
    // The client waits 100 ms before resuming, so the first progress event (at 60 ms) comes from the
    // buffer and the rest from the call still running.
    const transport = new StreamableHTTPClientTransport(new URL(proxy.url), {
      fetch: cuttingFetch,
      reconnectionOptions: {
        initialReconnectionDelay: 100,
        maxReconnectionDelay: 200,
        reconnectionDelayGrowFactor: 1.5,
        maxRetries: 3,
      },
    });
    const client = new Client({ name: 'resuming', version: '1' });
    client.onerror = () => undefined; // the SDK reports the cut stream before it resumes
    await client.connect(transport);
    const progress: number[] = [];
    const result = await client.callTool({ name: 'slow', arguments: { steps: 3, ms: 60 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(textOf(result)).toBe('done 3');
    expect(progress).toEqual([1, 2, 3]);
    expect(cut).toBe(true);
    expect(resumedWith).toHaveLength(1);
    await client.close();
  });

  it('replays a finished call stream from the buffer when the client comes back after the answer', async () => {
    const headers = await session();
    const post = await fetch(proxy.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'slow', arguments: { steps: 2, ms: 40 }, _meta: { progressToken: 'p' } },
      }),
    });
    const seen = await readUntil(post, /^id: .+$/m); // the first progress event, then the client goes away
    const [first] = ids(seen);
    expect(first).toMatch(/^\d+-\d+$/);
    // The call finishes while nobody listens: the proxy holds no call of the session in flight any more.
    await waitFor(() => proxy.runtime.sessions.get(headers['mcp-session-id'] ?? '')?.busy === false);
    const again = await fetch(proxy.url, {
      headers: { ...headers, accept: 'text/event-stream', 'last-event-id': first ?? '' },
    });
    expect(again.status).toBe(200);
    const text = await again.text(); // ends after the replayed answer
    const messages = [...text.matchAll(/^data: (.+)$/gm)].map((m) => JSON.parse(m[1] ?? '') as Record<string, unknown>);
    expect(messages.map((m) => m.method ?? m.id)).toEqual(['notifications/progress', 7]);
    expect(JSON.stringify(messages[1])).toContain('done 2');
  });

  it('replays GET-stream events sent while the client was disconnected', async () => {
    const headers = await session();
    const get = { ...headers, accept: 'text/event-stream' };
    const first = await fetch(proxy.url, { headers: get });
    const call = (id: number): Promise<string> =>
      fetch(proxy.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'change', arguments: {} } }),
      }).then((r) => r.text());
    await call(1);
    const seen = await readUntil(first, /list_changed/);
    const [last] = ids(seen);
    await call(2); // while the GET stream is gone
    const resumed = await fetch(proxy.url, { headers: { ...get, 'last-event-id': last ?? '' } });
    const text = await readUntil(resumed, /list_changed/);
    expect(text).toContain('notifications/tools/list_changed');
    expect(ids(text)[0]).not.toBe(last);
  });

  it('answers 404 for a Last-Event-ID the session never issued', async () => {
    const headers = await session();
    const res = await fetch(proxy.url, {
      headers: { ...headers, accept: 'text/event-stream', 'last-event-id': '3-999999' },
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: 'not_found',
      error_description: 'the last-event-id is not an event id of this session',
    });
  });

  it('sends no priming event to clients before 2025-11-25, whose lone answer keeps its content length', async () => {
    const headers = await session('2025-06-18');
    const res = await fetch(proxy.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }),
    });
    expect(res.headers.get('transfer-encoding')).toBeNull();
    expect(await res.text()).toMatch(
      /^id: \d+-\d+\nevent: message\ndata: \{"jsonrpc":"2.0","id":3,"result":\{\}\}\n\n$/,
    );
  });
});
