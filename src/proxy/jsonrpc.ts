// JSON-RPC 2.0 shapes and the error codes the proxy answers with.
export type Id = string | number;

export interface JsonRpcRequest { jsonrpc: '2.0'; id: Id; method: string; params?: Record<string, unknown> }
export interface JsonRpcNotification { jsonrpc: '2.0'; method: string; params?: Record<string, unknown> }
export interface JsonRpcResult { jsonrpc: '2.0'; id: Id; result: Record<string, unknown> }
export interface JsonRpcError { jsonrpc: '2.0'; id: Id | null; error: { code: number; message: string; data?: unknown } }
export type JsonRpcResponse = JsonRpcResult | JsonRpcError;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

export const ParseError = -32700;
export const InvalidRequest = -32600;
export const MethodNotFound = -32601;
export const InvalidParams = -32602;
export const InternalError = -32603;

export function rpcError(id: Id | null, code: number, message: string, data?: unknown): JsonRpcError {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

export function classify(value: unknown): JsonRpcMessage | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return undefined;
  const hasId = typeof m.id === 'string' || typeof m.id === 'number';
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
