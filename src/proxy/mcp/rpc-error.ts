// The JSON-RPC error a target answered with, as the proxy's MCP room passes it on. Its own class rather
// than the MCP SDK's McpError, whose module loads the SDK's zod schemas: a proxy of streamable-HTTP
// targets never loads the SDK. The message reads as the SDK's does ("MCP error <code>: <message>"), and
// `isRpcError` also recognises the SDK's errors, which stdio and legacy SSE targets still raise.
import { RequestTimeout } from './jsonrpc.js';

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`MCP error ${code}: ${message}`);
    this.name = 'McpError';
  }
}

/** A JSON-RPC error from a target or the SDK client: an Error with a numeric `code` (Node's and undici's codes are text). */
export function isRpcError(err: unknown): err is Error & { code: number; data?: unknown } {
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'number';
}

/** The request timed out waiting for the target (the code and data the SDK client gives). */
export function requestTimedOut(timeoutMs: number): RpcError {
  return new RpcError(RequestTimeout, 'Request timed out', { timeout: timeoutMs });
}
