// The MCP endpoint (mcp/endpoint.ts with its session, stateless, multiplexing and catalog modules) loads
// when a snapshot first has an MCP backend, not with every proxy: an LLM-only or forwarding gateway never
// imports it. The runtime awaits this at apply; a request that reaches an MCP route before (a route the
// runtime did not foresee) waits for the one load, later ones find the module loaded.
import type * as Endpoint from '../mcp/endpoint.js';
import { lazyModule } from './once.js';

const endpoint = lazyModule<typeof Endpoint>(() => import('../mcp/endpoint.js'));

/** mcp/endpoint.ts, imported once; later calls resolve with the same module (a failed import is tried again). */
export const loadMcpEndpoint = endpoint.load;

/** The endpoint's module once loaded (no promise on the request path then), else undefined. */
export const loadedMcpEndpoint = endpoint.loaded;
