// The MCP SDK client and its transports (mcp/upstream.ts: zod, ajv, cross-spawn, eventsource and the
// SDK's client modules, about 18 MiB of RSS) load when a snapshot first has a stdio or legacy SSE target,
// not with the proxy: streamable-HTTP targets are spoken to without them (mcp/http-target.ts). The runtime
// awaits this at apply, so a session's first connection finds the module loaded.
import type * as Upstream from '../mcp/upstream.js';
import { lazyModule } from './once.js';

/** mcp/upstream.ts, imported once; later calls resolve with the same module (a failed import is tried again). */
export const loadMcpClient = lazyModule<typeof Upstream>(() => import('../mcp/upstream.js')).load;
