// The real-node suite's MCP server, run as a pod from Gw's own image (its Node and the MCP SDK among the
// image's production dependencies, imported by absolute path). Stateless streamable HTTP on :8000/mcp; one
// tool, `whoami`, answers with the pod's name, so a client sees which replica served it.
import { createServer } from 'node:http';
import { hostname } from 'node:os';
import { Server } from '/app/node_modules/@modelcontextprotocol/sdk/dist/esm/server/index.js';
import { StreamableHTTPServerTransport } from '/app/node_modules/@modelcontextprotocol/sdk/dist/esm/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from '/app/node_modules/@modelcontextprotocol/sdk/dist/esm/types.js';

function mcpServer() {
  const server = new Server({ name: 'node-echo', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: 'whoami', description: 'The serving pod', inputSchema: { type: 'object', properties: {} } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, (req) => {
    if (req.params.name !== 'whoami') throw new Error(`unknown tool ${req.params.name}`);
    return { content: [{ type: 'text', text: `pod ${hostname()}` }] };
  });
  return server;
}

createServer(async (req, res) => {
  if (req.url === '/healthz') return res.end('ok');
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => void transport.close());
  await mcpServer().connect(transport);
  await transport.handleRequest(req, res);
}).listen(8000);
