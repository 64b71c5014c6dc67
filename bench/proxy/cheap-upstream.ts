// Bench upstream that costs next to nothing (BENCH_UPSTREAM=cheap, the default): a hand-written
// JSON-RPC MCP server on node:http, not the SDK's, so "proxied / direct" measures the proxy and not an
// upstream that is itself slower than the proxy. It answers initialize (with an mcp-session-id),
// notifications (202), tools/list, tools/call (echo: `bench:<text>`) and anything else with an empty
// result, all as application/json; GET (the server stream) is 405, as the spec allows; DELETE 200. A request
// whose `_meta` names 2026-07-28 is served without a session (server/discover, tools/call: BENCH_PROTOCOL),
// its server/discover answer public for BENCH_DISCOVER_TTL_MS.
// Prints its URL on stdout and runs until its stdin closes.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const sessions = new Set<string>();
// How long a gateway may keep this server's server/discover answer (public): BENCH_DISCOVER_TTL_MS=0 makes
// every stateless call discover again, as a server on the SDK's default caching controls does.
const discoverTtlMs = Number(process.env.BENCH_DISCOVER_TTL_MS ?? 60_000);
const tools = [{ name: 'echo', description: 'echo tool of bench', inputSchema: { type: 'object' } }];

function answer(res: ServerResponse, status: number, body: string, session?: string): void {
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  };
  if (session) headers['mcp-session-id'] = session;
  res.writeHead(status, headers).end(body);
}

interface Rpc {
  id?: string | number;
  method?: string;
  params?: {
    name?: string;
    arguments?: { text?: string };
    protocolVersion?: string;
    _meta?: Record<string, unknown>;
  };
}

function result(rpc: Rpc, value: unknown): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(rpc.id)},"result":${JSON.stringify(value)}}`;
}

function onPost(req: IncomingMessage, res: ServerResponse, text: string): void {
  let rpc: Rpc;
  try {
    rpc = JSON.parse(text) as Rpc;
  } catch {
    return answer(res, 400, '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
  }
  const sid = req.headers['mcp-session-id'];
  if (rpc.method === 'initialize') {
    const id = randomUUID();
    sessions.add(id);
    const version = rpc.params?.protocolVersion ?? '2025-06-18';
    const init = { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: 'cheap', version: '1' } };
    return answer(res, 200, result(rpc, init), id);
  }
  const modern = rpc.params?._meta?.['io.modelcontextprotocol/protocolVersion'] === '2026-07-28';
  if (modern && rpc.method === 'server/discover') {
    const found = {
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: {} },
      resultType: 'complete',
      ttlMs: discoverTtlMs,
      cacheScope: 'public',
    };
    return answer(res, 200, result(rpc, found));
  }
  if (!modern && (typeof sid !== 'string' || !sessions.has(sid))) return answer(res, 404, '');
  if (rpc.id === undefined) return void res.writeHead(202).end();
  if (rpc.method === 'tools/call') {
    const body = result(rpc, { content: [{ type: 'text', text: `bench:${rpc.params?.arguments?.text ?? ''}` }] });
    return answer(res, 200, body);
  }
  if (rpc.method === 'tools/list') return answer(res, 200, result(rpc, { tools }));
  answer(res, 200, result(rpc, {}));
}

const server = createServer((req, res) => {
  if (req.method === 'GET') return void res.writeHead(405, { allow: 'POST, DELETE' }).end();
  if (req.method === 'DELETE') {
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') sessions.delete(sid);
    return void res.writeHead(200).end();
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => onPost(req, res, Buffer.concat(chunks).toString('utf8')));
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
// The bench holds our stdin: when it goes away (even killed), so do we.
process.stdin.on('end', () => process.exit(0)).resume();
