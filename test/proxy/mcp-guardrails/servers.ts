// Real servers for the guardrail tests, on 127.0.0.1:0: MCP targets built with the SDK (a stateless
// McpServer, a fresh one per request; a stateful Server that asks the client for sampling and roots) and
// guardrail processors that implement the contract of docs/mcp-guardrails.md with a small policy,
// recording everything they are asked.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { Server as McpLowLevelServer } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  RootsListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { pino, type Logger } from 'pino';
import { z } from 'zod';
import type { ProcessorRequest } from '../../../src/proxy/mcp/guardrails/index.js';

export interface Running {
  port: number;
  url: string;
  close(): Promise<void>;
}

/** HTTPRoute default/mcp on Gateway web: path prefix `/<name>` → GwBackend `<name>`, one rule each. */
export function prefixRoutes(names: readonly string[]): string {
  return `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: mcp, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
${names.map((n) => `  - matches: [{path: {type: PathPrefix, value: /${n}}}]\n    backendRefs: [{group: gw.dev, kind: GwBackend, name: ${n}}]`).join('\n')}
`;
}

/** Any HTTP handler on 127.0.0.1:0. */
export function startHttp(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  path = '/check',
): Promise<Running> {
  return listen(createServer(handler), path);
}

function listen(server: Server, path: string): Promise<Running> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        port,
        url: `http://127.0.0.1:${port}${path}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    }),
  );
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

/** Tools: echo (text back), delete_file, read_note (a note holding the word "hunter2"). Records each tools/call it runs. */
export async function startTarget(): Promise<
  Running & { calls: Array<{ name: string; args: Record<string, unknown> }> }
> {
  const calls: Array<{ name: string; args: Record<string, unknown> }> = [];
  const build = (): McpServer => {
    const s = new McpServer({ name: 'files', version: '1.0.0' });
    const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
    s.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text: t }) => {
      calls.push({ name: 'echo', args: { text: t } });
      return text(`echo:${t}`);
    });
    s.registerTool('delete_file', { inputSchema: { path: z.string() } }, ({ path }) => {
      calls.push({ name: 'delete_file', args: { path } });
      return text(`deleted ${path}`);
    });
    s.registerTool('read_note', {}, () => {
      calls.push({ name: 'read_note', args: {} });
      return text('the password is hunter2, keep hunter2 safe');
    });
    s.registerPrompt('greet', { argsSchema: { who: z.string() } }, ({ who }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `hello ${who}` } }],
    }));
    return s;
  };
  const server = createServer((req, res) => {
    void (async () => {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      const mcp = build();
      res.on('close', () => {
        void transport.close();
        void mcp.close();
      });
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
    if (name.startsWith('delete_'))
      return {
        action: 'reject',
        error: { code: -32099, message: `tool ${name} is not allowed here`, data: { policy: 'no-deletes' } },
      };
    const args = (b.params.arguments ?? {}) as Record<string, unknown>;
    if (args.text === 'rewrite-me')
      return { action: 'modify', params: { ...b.params, arguments: { ...args, text: 'rewritten' } } };
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
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { log: pino({ level: 'debug' }, destination), lines };
}

/**
 * A stateful SDK MCP target (one Server per session) whose tools ask the client: `ask_model` sends
 * sampling/createMessage, `list_roots` sends roots/list. A request the client side refuses comes back as
 * `refused:<code>:<message>`, so a test sees what the target was told. Counts roots/list_changed notifications.
 */
export async function startSamplingTarget(): Promise<Running & { rootsChanged(): number }> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let rootsChanged = 0;
  const build = (): McpLowLevelServer => {
    const s = new McpLowLevelServer({ name: 'models', version: '1.0.0' }, { capabilities: { tools: {} } });
    const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
    s.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: ['ask_model', 'list_roots'].map((name) => ({ name, inputSchema: { type: 'object' as const } })),
    }));
    s.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      try {
        if (req.params.name === 'list_roots') {
          const r = await extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema);
          return text(r.roots.map((x) => x.uri).join(','));
        }
        const prompt = String(req.params.arguments?.prompt ?? '');
        const r = await extra.sendRequest(
          {
            method: 'sampling/createMessage',
            params: {
              messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
              maxTokens: 10,
            },
          },
          CreateMessageResultSchema,
        );
        return text(`sampled:${r.content.type === 'text' ? r.content.text : ''}`);
      } catch (err) {
        const e = err as { code?: number; message?: string };
        return text(`refused:${e.code ?? ''}:${e.message ?? ''}`);
      }
    });
    s.setNotificationHandler(RootsListChangedNotificationSchema, () => {
      rootsChanged++;
    });
    return s;
  };
  const server = createServer((req, res) => {
    const sid = req.headers['mcp-session-id'];
    const existing = typeof sid === 'string' ? transports.get(sid) : undefined;
    if (existing) return void existing.handleRequest(req, res);
    if (typeof sid === 'string') return void res.writeHead(404).end();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
    };
    void build()
      .connect(transport)
      .then(() => transport.handleRequest(req, res));
  });
  const running = await listen(server, '/mcp');
  return {
    ...running,
    rootsChanged: () => rootsChanged,
    close: async () => {
      await Promise.all([...transports.values()].map((t) => t.close()));
      await running.close();
    },
  };
}

/**
 * A processor for a target's requests and client notifications: rejects sampling about "forbidden" (-32098),
 * rewrites a prompt saying "rewrite me", masks "hunter2" in the client's sampling result, hides roots under
 * /private, and drops client notifications while `dropNotifications` is set. Answers allow to anything else.
 */
export async function startSessionProcessor(): Promise<
  Running & { seen: ProcessorRequest[]; dropNotifications: boolean }
> {
  const state = { seen: [] as ProcessorRequest[], dropNotifications: false };
  const promptOf = (p: Record<string, unknown>): string => JSON.stringify(p.messages ?? '');
  const decideSession = (b: ProcessorRequest): unknown => {
    if (b.phase === 'notification') return state.dropNotifications ? { action: 'reject' } : { action: 'allow' };
    if (b.phase === 'serverRequest' && b.method === 'sampling/createMessage') {
      if (promptOf(b.params).includes('forbidden'))
        return {
          action: 'reject',
          error: {
            code: -32098,
            message: 'sampling about forbidden topics is not allowed',
            data: { policy: 'topics' },
          },
        };
      if (promptOf(b.params).includes('rewrite me'))
        return {
          action: 'modify',
          params: { ...b.params, messages: [{ role: 'user', content: { type: 'text', text: 'rewritten prompt' } }] },
        };
    }
    if (
      b.phase === 'serverResponse' &&
      b.method === 'sampling/createMessage' &&
      JSON.stringify(b.result).includes('hunter2')
    ) {
      return {
        action: 'modify',
        result: JSON.parse(JSON.stringify(b.result).replaceAll('hunter2', '****')) as unknown,
      };
    }
    if (b.phase === 'serverResponse' && b.method === 'roots/list') {
      const roots = (b.result?.roots ?? []) as Array<{ uri: string }>;
      return { action: 'modify', result: { ...b.result, roots: roots.filter((r) => !r.uri.includes('/private')) } };
    }
    return { action: 'allow' };
  };
  const server = createServer((req, res) => {
    void (async () => {
      const body = (await readJson(req)) as ProcessorRequest;
      state.seen.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(decideSession(body)));
    })();
  });
  const running = await listen(server, '/check');
  return Object.assign(state, running);
}
