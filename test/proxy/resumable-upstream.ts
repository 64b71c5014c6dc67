// A streamable-HTTP MCP target built on the SDK's real server with an event store, so its SSE events
// carry ids and a GET with Last-Event-ID replays what a dropped stream missed. Tools:
// - `poll`: progress, then the server closes the call's stream (the SDK's closeSSEStream, the
//   spec's polling pattern), then progress and the answer while the stream is gone;
// - `cut`: progress, then the TCP connection carrying the call is destroyed mid-stream, then the answer.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export interface ResumableUpstream {
  url: string;
  resumes: string[];
  close(): Promise<void>;
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// The behaviour under test, a target's own pacing: it sends an event, lets it travel to the proxy, loses the
// stream, and keeps working for a moment while no stream is attached (so what follows is only replayed).
/** Time for the first event to reach the proxy before the stream is lost. */
const BEFORE_LOSS_MS = 30;
/** Time the call goes on with no stream, before its last progress and answer. */
const WHILE_GONE_MS = 30;

/** `refuseResume`: event ids are given, but a GET with Last-Event-ID is answered 405. */
export async function startResumableUpstream(
  opts: { eventStore?: boolean; refuseResume?: boolean } = {},
): Promise<ResumableUpstream> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const sockets = new Map<string, Socket>(); // JSON-RPC id of a tools/call → the connection carrying it
  const resumes: string[] = [];
  const serverFor = (): Server => {
    const server = new Server({ name: 'resumable', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: ['poll', 'cut'].map((name) => ({ name, inputSchema: { type: 'object' as const } })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const token = req.params._meta?.progressToken;
      const progress = async (n: number): Promise<void> => {
        if (token !== undefined)
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: n, total: 2 },
          });
      };
      await progress(1);
      await pause(BEFORE_LOSS_MS);
      if (req.params.name === 'poll') extra.closeSSEStream?.();
      else sockets.get(String(extra.requestId))?.destroy();
      await pause(WHILE_GONE_MS);
      await progress(2);
      return { content: [{ type: 'text' as const, text: `${req.params.name} answered after the stream was lost` }] };
    });
    return server;
  };
  const http: HttpServer = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => {
      text += c.toString();
    });
    req.on('end', () => {
      const body: unknown = text ? JSON.parse(text) : undefined;
      const last = req.headers['last-event-id'];
      if (req.method === 'GET' && typeof last === 'string') {
        resumes.push(last);
        if (opts.refuseResume) return void res.writeHead(405, { allow: 'POST, DELETE' }).end();
      }
      const call = body as { id?: unknown; method?: string } | undefined;
      if (call?.method === 'tools/call') sockets.set(String(call.id), req.socket);
      const sid = req.headers['mcp-session-id'];
      const existing = typeof sid === 'string' ? transports.get(sid) : undefined;
      if (existing) return void existing.handleRequest(req, res, body);
      if (typeof sid === 'string') return void res.writeHead(404).end();
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        ...(opts.eventStore === false ? {} : { eventStore: new InMemoryEventStore(), retryInterval: 20 }),
        onsessioninitialized: (id) => {
          transports.set(id, transport);
        },
      });
      void serverFor()
        .connect(transport)
        .then(() => transport.handleRequest(req, res, body));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    resumes,
    close: async () => {
      await Promise.all([...transports.values()].map((t) => t.close()));
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}
