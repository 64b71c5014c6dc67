// The MCP SDK client and its transports (mcp/upstream.ts: ajv, cross-spawn, eventsource and the SDK's
// client modules, about 3 MB of heap) load when a snapshot first has an MCP backend, not with the proxy:
// an LLM- or HTTP-only proxy never loads them. The runtime awaits this at apply, so a session's first
// connection finds the module loaded.
import type * as Upstream from '../mcp/upstream.js';

let loading: Promise<typeof Upstream> | undefined;

/** mcp/upstream.ts, imported once; later calls resolve with the same module. */
export function loadMcpClient(): Promise<typeof Upstream> {
  return (loading ??= import('../mcp/upstream.js'));
}
