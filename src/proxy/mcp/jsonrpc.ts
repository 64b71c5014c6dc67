// JSON-RPC 2.0 shapes and the error codes the proxy answers with.
import { randomUUID } from 'node:crypto';

export type Id = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: Id;
  method: string;
  params?: Record<string, unknown>;
}
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}
export interface JsonRpcResult {
  jsonrpc: '2.0';
  id: Id;
  result: Record<string, unknown>;
}
export interface JsonRpcError {
  jsonrpc: '2.0';
  id: Id | null;
  error: { code: number; message: string; data?: unknown };
}
export type JsonRpcResponse = JsonRpcResult | JsonRpcError;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

export const ParseError = -32700;
export const InvalidRequest = -32600;
export const MethodNotFound = -32601;
export const InvalidParams = -32602;
export const InternalError = -32603;
/** MCP's code for a request that timed out (the SDK's ErrorCode.RequestTimeout). */
export const RequestTimeout = -32001;

export function rpcError(id: Id | null, code: number, message: string, data?: unknown): JsonRpcError {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

export function classify(value: unknown): JsonRpcMessage | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return undefined;
  const hasId = typeof m.id === 'string' || typeof m.id === 'number';
  // JSON-RPC ids are strings or numbers; MCP also forbids null, so any other id makes the message invalid.
  if ('id' in m && m.id !== undefined && !hasId) return undefined;
  if (typeof m.method === 'string') {
    if (m.params !== undefined && (m.params === null || typeof m.params !== 'object')) return undefined;
    return value as JsonRpcRequest | JsonRpcNotification;
  }
  if (hasId && ('result' in m || 'error' in m)) return value as JsonRpcResponse;
  return undefined;
}

export function isRequest(m: JsonRpcMessage): m is JsonRpcRequest {
  return 'method' in m && 'id' in m && m.id !== undefined;
}

export function isNotification(m: JsonRpcMessage): m is JsonRpcNotification {
  return 'method' in m && !('id' in m && m.id !== undefined);
}

/** An error's message without the SDK's "MCP error <code>: " prefix, for answers that add their own context. */
export function messageOf(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.replace(/^MCP error -?\d+: /, '');
}

/** Deepest nesting a message may have; deeper values are refused before anything recurses over them. */
export const maxNesting = 128;

/** Whether JSON text nests objects and arrays deeper than `limit` (strings are skipped). One pass, no allocation. */
export function nestedDeeperThan(text: string, limit = maxNesting): boolean {
  if (text.length <= limit) return false; // every level takes a character: a short text cannot nest deeper
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > limit) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/**
 * What a client may read about a failed call to a target: the transport's own description (plain `Error`s
 * raised while talking to the target: its HTTP status, a closed stream) or the network error's code.
 * Anything else (a TypeError or the like) is a fault in the proxy and gets a reference instead.
 */
export function targetFailureText(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code ?? (err.cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return `${err.message.slice(0, 200)} (${code})`;
  return Object.getPrototypeOf(err) === Error.prototype ? err.message.slice(0, 600) : undefined;
}

/** A JSON-RPC error for a failure inside the proxy: the client gets a reference, the log gets the cause. */
export function internalError(
  id: Id | null,
  err: unknown,
  log: { error(obj: object, msg: string): void },
): JsonRpcError {
  const ref = randomUUID();
  log.error(
    { ref, err: err instanceof Error ? err.message : String(err) },
    'internal error answering a JSON-RPC request',
  );
  return rpcError(id, InternalError, `internal error (ref ${ref})`);
}
