// The proxy's own client for streamable-HTTP targets (src/proxy/mcp/http-target.ts), against a
// hand-written target that records every request, so what goes on the wire is asserted, not assumed:
// initialize and the initialized notification, the GET stream and its resumption, the target's
// notifications and requests (answered with a POST, or not at all once cancelled), and DELETE.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpTarget } from '../../src/ir/types.js';
import { connectHttpTarget, streamReconnects } from '../../src/proxy/mcp/http-target.js';
import type { TargetDial, Upstream, UpstreamEvents } from '../../src/proxy/mcp/target-connection.js';
import { waitFor } from './harness.js';
import { capturingLogger } from './mcp-guardrails/servers.js';

interface Seen {
  method: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown> | undefined;
}

/** A target that answers initialize (and calls) with JSON, keeps GET streams open for the test to write to. */
class FakeTarget {
  readonly seen: Seen[] = [];
  readonly streams: ServerResponse[] = [];
  version = '2025-06-18';
  getStatus = 200;
  private server: Server;
  url = '';

  constructor() {
    this.server = createServer((req, res) => void this.serve(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/mcp`;
    return this;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let text = '';
    for await (const c of req) text += String(c);
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    this.seen.push({ method: req.method ?? '', headers: req.headers, body });
    if (req.method === 'GET') {
      if (this.getStatus !== 200) return void res.writeHead(this.getStatus).end();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      this.streams.push(res);
      return;
    }
    if (req.method === 'DELETE') return void res.writeHead(200).end();
    if (body?.method === 'initialize') {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'sess-1' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: body.id,
          result: {
            protocolVersion: this.version,
            capabilities: { tools: {} },
            serverInfo: { name: 'fake', version: '1' },
            instructions: 'be kind',
          },
        }),
      );
      return;
    }
    if (body && 'id' in body && 'method' in body) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { echoed: body.method } }));
      return;
    }
    res.writeHead(202).end(); // notifications and answers to the target's requests
  }

  /** Writes one event on the newest GET stream. */
  send(message: unknown, id?: string): void {
    const s = this.streams.at(-1);
    if (!s) throw new Error('no GET stream');
    s.write(`${id ? `id: ${id}\n` : ''}data: ${JSON.stringify(message)}\n\n`);
  }

  posts(): Array<Record<string, unknown>> {
    return this.seen.filter((s) => s.method === 'POST').map((s) => s.body ?? {});
  }

  close(): Promise<void> {
    for (const s of this.streams) s.destroy();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

interface Recorded {
  notifications: unknown[];
  requests: Array<{ method: string; signal: AbortSignal }>;
}

function dialOf(
  url: string,
  answer: (method: string, signal: AbortSignal) => Promise<Record<string, unknown>>,
  extra: Partial<TargetDial> = {},
): { dial: TargetDial; got: Recorded } {
  const got: Recorded = { notifications: [], requests: [] };
  const events: UpstreamEvents = {
    onNotification: (_t, n) => void got.notifications.push(n),
    onRequest: (_t, r, signal) => {
      got.requests.push({ method: r.method, signal });
      return answer(r.method, signal);
    },
    onClose: () => undefined,
  };
  const target: McpTarget = {
    name: 't',
    transport: 'remote',
    remote: { url, protocol: 'STREAMABLE_HTTP' },
  } as McpTarget;
  return {
    dial: {
      target,
      clientInfo: { name: 'gw-test', version: '0' },
      capabilities: { sampling: {} },
      events,
      log: pino({ level: 'silent' }),
      ...extra,
    },
    got,
  };
}

const targets: FakeTarget[] = [];
const ups: Upstream[] = [];
afterEach(async () => {
  await Promise.all(ups.splice(0).map((u) => u.close(false)));
  await Promise.all(targets.splice(0).map((t) => t.close()));
});

async function started(): Promise<FakeTarget> {
  const t = await new FakeTarget().start();
  targets.push(t);
  return t;
}

describe('connectHttpTarget', () => {
  it('initializes, sends notifications/initialized with the session headers, then opens the GET stream', async () => {
    const target = await started();
    const { dial } = dialOf(target.url, async () => ({}));
    const up = await connectHttpTarget(dial);
    ups.push(up);
    // First the 2026-07-28 probe; a target that does not answer it as 2026 is initialized (2025).
    const [probe, init, initialized] = target.seen;
    expect(probe?.body).toMatchObject({ method: 'server/discover' });
    expect(probe?.headers['mcp-protocol-version']).toBe('2026-07-28');
    expect(init?.body).toMatchObject({
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { sampling: {} }, clientInfo: { name: 'gw-test' } },
    });
    expect(init?.headers['mcp-session-id']).toBeUndefined();
    expect(initialized?.body).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(initialized?.headers['mcp-session-id']).toBe('sess-1');
    expect(initialized?.headers['mcp-protocol-version']).toBe('2025-06-18');
    expect(up.capabilities).toEqual({ tools: {} });
    expect(up.serverInfo).toEqual({ name: 'fake', version: '1' });
    expect(up.instructions).toBe('be kind');
    expect([up.sessionId(), up.protocolVersion()]).toEqual(['sess-1', '2025-06-18']);
    await waitFor(() => target.streams.length === 1);
    const get = target.seen.find((s) => s.method === 'GET');
    expect(get?.headers.accept).toBe('text/event-stream');
    expect(get?.headers['mcp-session-id']).toBe('sess-1');
    // Calls carry the session too.
    expect(await up.call('tools/list', {}, { timeoutMs: 5_000 })).toEqual({ echoed: 'tools/list' });
    expect(target.seen.at(-1)?.headers['mcp-session-id']).toBe('sess-1');
  });

  it('refuses a target that answers with a protocol version it does not know, and ends that session', async () => {
    const target = await started();
    target.version = '2023-01-01';
    const { dial } = dialOf(target.url, async () => ({}));
    await expect(connectHttpTarget(dial)).rejects.toThrow("Server's protocol version is not supported: 2023-01-01");
    await waitFor(() => target.seen.some((s) => s.method === 'DELETE'));
    expect(target.seen.find((s) => s.method === 'DELETE')?.headers['mcp-session-id']).toBe('sess-1');
  });

  it("passes the target's notifications on, answers its pings itself and its other requests through the session", async () => {
    const target = await started();
    const { dial, got } = dialOf(target.url, async (method) => {
      if (method === 'sampling/createMessage') return { role: 'assistant', content: { type: 'text', text: 'hi' } };
      throw Object.assign(new Error('no roots here'), { code: -32601, data: { why: 'test' } });
    });
    ups.push(await connectHttpTarget(dial));
    await waitFor(() => target.streams.length === 1);
    target.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    target.send({ jsonrpc: '2.0', id: 7, method: 'ping' });
    target.send({ jsonrpc: '2.0', id: 8, method: 'sampling/createMessage', params: { messages: [] } });
    target.send({ jsonrpc: '2.0', id: 9, method: 'roots/list' });
    await waitFor(() => target.posts().filter((p) => 'id' in p && !('method' in p)).length === 3);
    expect(got.notifications).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
    expect(got.requests.map((r) => r.method)).toEqual(['sampling/createMessage', 'roots/list']); // not ping
    const answers = target.posts().filter((p) => 'id' in p && !('method' in p));
    expect(answers).toContainEqual({ jsonrpc: '2.0', id: 7, result: {} });
    expect(answers).toContainEqual({
      jsonrpc: '2.0',
      id: 8,
      result: { role: 'assistant', content: { type: 'text', text: 'hi' } },
    });
    expect(answers).toContainEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32601, message: 'no roots here', data: { why: 'test' } },
    });
    const answer = target.seen.find((s) => s.body?.id === 8);
    expect(answer?.headers['mcp-session-id']).toBe('sess-1');
  });

  it('stops a request the target cancels, and sends no answer to it', async () => {
    const target = await started();
    const { dial, got } = dialOf(
      target.url,
      (_m, signal) =>
        new Promise((resolve) => signal.addEventListener('abort', () => resolve({ late: true }), { once: true })),
    );
    ups.push(await connectHttpTarget(dial));
    await waitFor(() => target.streams.length === 1);
    target.send({ jsonrpc: '2.0', id: 'slow', method: 'elicitation/create', params: {} });
    await waitFor(() => got.requests.length === 1);
    target.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow', reason: 'enough' } });
    await waitFor(() => got.requests[0]?.signal.aborted === true);
    expect(got.requests[0]?.signal.reason).toBe('enough');
    target.send({ jsonrpc: '2.0', id: 10, method: 'ping' });
    await waitFor(() => target.posts().some((p) => p.id === 10));
    expect(target.posts().some((p) => p.id === 'slow')).toBe(false);
    expect(got.notifications).toEqual([]); // the cancellation was for the proxy, not the client
  });

  it('reopens a GET stream the target ends, from the last event id, at the pace the target asks', async () => {
    const target = await started();
    const { dial, got } = dialOf(target.url, async () => ({}));
    ups.push(await connectHttpTarget(dial));
    await waitFor(() => target.streams.length === 1);
    target.streams[0]?.write('retry: 20\n\n');
    target.send({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' }, 'ev-4');
    await waitFor(() => got.notifications.length === 1);
    target.streams[0]?.end();
    await waitFor(() => target.streams.length === 2, 2_000);
    const gets = target.seen.filter((s) => s.method === 'GET');
    expect(gets[1]?.headers['last-event-id']).toBe('ev-4');
    target.send({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' }, 'ev-5');
    await waitFor(() => got.notifications.length === 2);
  });

  it('gives up after the set number of refused reconnects in a row', async () => {
    const target = await started();
    const { log, lines } = capturingLogger();
    const { dial, got } = dialOf(target.url, async () => ({}), { log });
    ups.push(await connectHttpTarget(dial));
    await waitFor(() => target.streams.length === 1);
    // The event after the retry field proves the proxy has read it.
    target.streams[0]?.write('retry: 10\n\n');
    target.send({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' });
    await waitFor(() => got.notifications.length === 1);
    target.getStatus = 503; // restarting, for longer than the proxy waits
    target.streams[0]?.end();
    await waitFor(() => lines.some((l) => l.includes('gave up reconnecting the target GET stream')));
    expect(target.seen.filter((s) => s.method === 'GET')).toHaveLength(1 + streamReconnects.attempts);
  });

  it('takes a 405 as a target without a GET stream and does not ask again', async () => {
    const target = await started();
    target.getStatus = 405;
    const { log, lines } = capturingLogger();
    const { dial } = dialOf(target.url, async () => ({}), { log });
    ups.push(await connectHttpTarget(dial));
    await waitFor(() => lines.some((l) => l.includes('the target has no GET stream (405); not asking again')));
    expect(target.seen.filter((s) => s.method === 'GET')).toHaveLength(1);
  });

  it('forwards the session notifications to the target, and ends the target session on close(true) only', async () => {
    const target = await started();
    const { dial } = dialOf(target.url, async () => ({}));
    const up = await connectHttpTarget(dial);
    await up.notify('notifications/roots/list_changed');
    expect(target.posts().at(-1)).toEqual({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    await up.close(false);
    expect(target.seen.some((s) => s.method === 'DELETE')).toBe(false);
    const again = await connectHttpTarget(dial);
    await again.close(true);
    const del = target.seen.find((s) => s.method === 'DELETE');
    expect(del?.headers['mcp-session-id']).toBe('sess-1');
    expect(del?.headers['mcp-protocol-version']).toBe('2025-06-18');
  });

  it('attaches to a session another replica began without initializing or opening a GET stream', async () => {
    const target = await started();
    const { dial } = dialOf(target.url, async () => ({}), {
      resume: { sessionId: 'theirs', protocolVersion: '2025-03-26', capabilities: { prompts: {} } },
    });
    const up = await connectHttpTarget(dial);
    ups.push(up);
    expect(up.capabilities).toEqual({ prompts: {} });
    await up.call('prompts/list', {}, { timeoutMs: 5_000 });
    expect(target.seen.map((s) => s.body?.method ?? s.method)).toEqual(['prompts/list']);
    expect(target.seen[0]?.headers['mcp-session-id']).toBe('theirs');
    expect(target.seen[0]?.headers['mcp-protocol-version']).toBe('2025-03-26');
  });

  it("fails with the target's HTTP status when initialize is refused", async () => {
    const server = createServer((_req, res) => void res.writeHead(401, { 'content-type': 'text/plain' }).end('no'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { dial } = dialOf(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, async () => ({}));
      await expect(connectHttpTarget(dial)).rejects.toThrow('Error POSTing to endpoint (HTTP 401): no');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
