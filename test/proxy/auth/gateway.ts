// A stand-in for the proxy runtime until it is merged: node:http with createMcpAuth in front of a tiny
// MCP endpoint built with the MCP SDK, plus the CEL authorizer, wired the way the proxy will wire them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { createLogger } from '../../../src/log.js';
import {
  createMcpAuth,
  type Authorizer,
  type McpAuth,
  type McpAuthDeps,
  type McpAuthSettings,
} from '../../../src/proxy/auth/index.js';

export interface GatewayOptions {
  authorizer?: Authorizer;
  now?: () => number;
  jwksCooldownMs?: number;
  metadataDocuments?: McpAuthDeps['metadataDocuments'];
}

export interface TestGateway {
  origin: string;
  /** Installs (or replaces) the auth module; the server listens first so settings can name its URL. */
  configure(settings: Omit<McpAuthSettings, 'mcpPath'> & { mcpPath?: string }, opts?: GatewayOptions): McpAuth;
  /** Every log line the auth module wrote, as raw JSON text. */
  logs: string[];
  /** Every request the auth module made to a provider: URL and body. */
  upstream: Array<{ url: string; body: string }>;
  close(): Promise<void>;
}

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'echo', title: 'Echo', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes text', inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool('admin_reset', { description: 'Admin only' }, () => ({
    content: [{ type: 'text', text: 'reset' }],
  }));
  return server;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

export async function startGateway(): Promise<TestGateway> {
  const logs: string[] = [];
  const upstream: TestGateway['upstream'] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const log = createLogger({ level: 'debug', destination });
  const recordingFetch: typeof fetch = (input, init) => {
    upstream.push({
      url: String(input instanceof Request ? input.url : input),
      body: typeof init?.body === 'string' ? init.body : '',
    });
    return fetch(input, init);
  };
  let auth: McpAuth | undefined;
  let mcpPath = '/mcp';
  let opts: GatewayOptions = {};

  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!auth) throw new Error('gateway not configured');
    if (await auth.handle(req, res)) return;
    const path = (req.url ?? '/').split('?')[0];
    if (path !== mcpPath) {
      res.writeHead(404).end();
      return;
    }
    const who = await auth.authenticate(req, res);
    if (!who) return;
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const rpc = (body ?? {}) as { method?: string; params?: { name?: string } };
    if (opts.authorizer && rpc.method) {
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v ?? '')]),
      );
      const ok = opts.authorizer.allows({
        jwt: who.claims ?? undefined,
        request: { method: req.method ?? 'GET', path, headers },
        mcp: {
          method: rpc.method,
          ...(rpc.method === 'tools/call' && rpc.params?.name ? { tool: rpc.params.name } : {}),
        },
      });
      if (!ok) {
        res
          .writeHead(403, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: 'forbidden', error_description: 'An authorization rule denied this request' }));
        return;
      }
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: false });
    const server = mcpServer();
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
  // Header limit above Node's 16 KiB default so the auth module's own token-size limit is what answers.
  const server: Server = createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => {
    onRequest(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    configure(settings, o = {}) {
      auth?.close();
      mcpPath = settings.mcpPath ?? '/mcp';
      opts = o;
      auth = createMcpAuth(
        { ...settings, mcpPath },
        {
          log,
          fetch: recordingFetch,
          now: o.now,
          jwksCooldownMs: o.jwksCooldownMs,
          metadataDocuments: o.metadataDocuments,
        },
      );
      return auth;
    },
    logs,
    upstream,
    close: () =>
      new Promise<void>((resolve) => {
        auth?.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
