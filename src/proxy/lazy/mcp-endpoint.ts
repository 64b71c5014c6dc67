// The MCP endpoint (mcp/endpoint.ts with its session, stateless, multiplexing and catalog modules) loads
// when a snapshot first has an MCP backend, not with every proxy: an LLM-only or forwarding gateway never
// imports it. The runtime awaits this at apply; a request that reaches an MCP route before (a route the
// runtime did not foresee) waits for the one load, later ones find the module loaded.
import type * as Endpoint from '../mcp/endpoint.js';

let loaded: typeof Endpoint | undefined;
let loading: Promise<typeof Endpoint> | undefined;

/** mcp/endpoint.ts, imported once; later calls resolve with the same module. */
export function loadMcpEndpoint(): Promise<typeof Endpoint> {
  return (loading ??= import('../mcp/endpoint.js').then((m) => (loaded = m)));
}

/** The endpoint's module once loaded (no promise on the request path then), else undefined. */
export const loadedMcpEndpoint = (): typeof Endpoint | undefined => loaded;
