// The MCP "everything" reference server over streamable HTTP on 127.0.0.1 only (its own HTTP entry
// point listens on every interface): one SDK transport per session. Used by `make run`.
// Usage: node scripts/mcp-everything-http.mjs [port]   (default 3001)
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createServer } from '@modelcontextprotocol/server-everything/dist/server/index.js';

const port = Number(process.argv[2] ?? 3001);
const transports = new Map();

const http = createHttpServer((req, res) => {
  const sid = req.headers['mcp-session-id'];
  const existing = typeof sid === 'string' ? transports.get(sid) : undefined;
  if (existing) return void existing.handleRequest(req, res);
  if (typeof sid === 'string') {
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"session not found"},"id":null}');
    return;
  }
  const { server, cleanup } = createServer();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => transports.set(id, transport),
  });
  transport.onclose = () => {
    if (!transport.sessionId) return;
    transports.delete(transport.sessionId);
    cleanup(transport.sessionId);
  };
  void server.connect(transport).then(() => transport.handleRequest(req, res));
});

http.listen(port, '127.0.0.1', () => console.error(`mcp everything server: http://127.0.0.1:${port}/mcp`));
const stop = () => {
  for (const t of transports.values()) void t.close();
  http.close(() => process.exit(0));
  http.closeAllConnections();
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
