// The JSON-RPC initialize request every MCP bench opens its sessions with, written once.

/** An MCP `initialize` request body as a client named "bench" sends it. */
export function initializeBody(protocolVersion = '2025-06-18', id = 0): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  });
}
