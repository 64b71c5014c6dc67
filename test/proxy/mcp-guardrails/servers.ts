// Real servers for the guardrail tests, on 127.0.0.1:0: an MCP target built with the SDK's McpServer
// (stateless streamable HTTP, a fresh server per request) and a guardrail processor that implements the
// contract of docs/mcp-guardrails.md with a small policy, recording everything it is asked.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { pino, type Logger } from 'pino';
import { z } from 'zod';
import type { ProcessorRequest } from '../../../src/proxy/mcp-guardrails/index.js';

export interface Running { port: number; url: string; close(): Promise<void> }

/** Any HTTP handler on 127.0.0.1:0. */
export function startHttp(handler: (req: IncomingMessage, res: ServerResponse) => void, path = '/check'): Promise<Running> {
  return listen(createServer(handler), path);
}

function listen(server: Server, path: string): Promise<Running> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    resolve({
      port, url: `http://127.0.0.1:${port}${path}`,
      close: () => new Promise<void>((done) => { server.close(() => done()); server.closeAllConnections(); }),
    });
  }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

/** Tools: echo (text back), delete_file, read_note (a note holding the word "hunter2"). Records each tools/call it runs. */
export async function startTarget(): Promise<Running & { calls: Array<{ name: string; args: Record<string, unknown> }> }> {
  const calls: Array<{ name: string; args: Record<string, unknown> }> = [];
  const build = (): McpServer => {
    const s = new McpServer({ name: 'files', version: '1.0.0' });
    const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
    s.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text: t }) => { calls.push({ name: 'echo', args: { text: t } }); return text(`echo:${t}`); });
    s.registerTool('delete_file', { inputSchema: { path: z.string() } }, ({ path }) => { calls.push({ name: 'delete_file', args: { path } }); return text(`deleted ${path}`); });
    s.registerTool('read_note', {}, () => { calls.push({ name: 'read_note', args: {} }); return text('the password is hunter2, keep hunter2 safe'); });
    s.registerPrompt('greet', { argsSchema: { who: z.string() } }, ({ who }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `hello ${who}` } }] }));
    return s;
  };
  const server = createServer((req, res) => {
    void (async () => {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      const mcp = build();
      res.on('close', () => { void transport.close(); void mcp.close(); });
      await mcp.connect(transport);
      await transport.handleRequest(req, res, req.method === 'POST' ? await readJson(req) : undefined);
    })();
  });
  return { ...(await listen(server, '/mcp')), calls };
}

/**
 * The processor's policy: rejects tools/call of `delete_*` (code -32099), rewrites an echo of "rewrite-me"
 * to "rewritten", masks "hunter2" in results, and drops `delete_*` tools from tools/list results.
 */
export async function startProcessor(): Promise<Running & { seen: ProcessorRequest[] }> {
  const seen: ProcessorRequest[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const body = (await readJson(req)) as ProcessorRequest;
      seen.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(decide(body)));
    })();
  });
  return { ...(await listen(server, '/check')), seen };
}

function decide(b: ProcessorRequest): unknown {
  const name = typeof b.params.name === 'string' ? b.params.name : '';
  if (b.phase === 'request' && b.method === 'tools/call') {
    if (name.startsWith('delete_')) return { action: 'reject', error: { code: -32099, message: `tool ${name} is not allowed here`, data: { policy: 'no-deletes' } } };
    const args = (b.params.arguments ?? {}) as Record<string, unknown>;
    if (args.text === 'rewrite-me') return { action: 'modify', params: { ...b.params, arguments: { ...args, text: 'rewritten' } } };
  }
  if (b.phase === 'response' && b.method === 'tools/list') {
    const tools = (b.result?.tools ?? []) as Array<{ name: string }>;
    return { action: 'modify', result: { ...b.result, tools: tools.filter((t) => !t.name.startsWith('delete_')) } };
  }
  if (b.phase === 'response' && JSON.stringify(b.result).includes('hunter2')) {
    return { action: 'modify', result: JSON.parse(JSON.stringify(b.result).replaceAll('hunter2', '****')) as unknown };
  }
  return { action: 'allow' };
}

/** A logger whose lines land in `lines` (raw JSON text), to check what the proxy writes. */
export function capturingLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({ write(chunk: Buffer, _enc, done) { lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)); done(); } });
  return { log: pino({ level: 'debug' }, destination), lines };
}
