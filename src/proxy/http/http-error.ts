// The one place HTTP error bodies are written: `{ error, error_description }`, never a stack or secret.
// On LLM routes the body takes the client's wire format instead (`answerErrorsAs`), so an SDK shows the
// description: OpenAI's `{ error: { message, type, code } }`, Anthropic's `{ type: 'error', error: { type, message } }`.
// On A2A JSON-RPC calls it is a JSON-RPC error carrying the call's id (`answerErrorsAsJsonRpc`).
import type { ServerResponse } from 'node:http';
import { InternalError, InvalidRequest, rpcError, type Id } from '../mcp/jsonrpc.js';
import { errorStatus, type ErrorCode, type ProxyError } from '../proxy-error.js';

const answeredWith = new WeakMap<ServerResponse, ErrorCode>();

/** The error wire formats of LLM clients; unset means Gw's own. */
export type ErrorWire = 'openai' | 'anthropic';
/** A JSON-RPC client's (A2A): the id of the call the error answers, null before it is known. */
interface JsonRpcWire {
  id: Id | null;
}
const wireOf = new WeakMap<ServerResponse, ErrorWire | JsonRpcWire>();
/** A stand-in that writes the client's response on another's behalf (ext-proc-endpoint.ts): errors count for the original. */
const standsFor = new WeakMap<ServerResponse, ServerResponse>();

/** Errors answered through `alias` are `res`'s: its wire format, its recorded error code. */
export function respondsFor(alias: ServerResponse, res: ServerResponse): void {
  standsFor.set(alias, res);
}

/** Errors answered on `res` from now on take this client's wire format. */
export function answerErrorsAs(res: ServerResponse, wire: ErrorWire): void {
  wireOf.set(res, wire);
}

/**
 * Errors answered on `res` from now on are JSON-RPC errors with this id: the proxy's status still says who is
 * at fault, the body is what a JSON-RPC client reads (code -32600 for the client's side, -32603 for the
 * proxy's or the backend's; `data` carries Gw's error code).
 */
export function answerErrorsAsJsonRpc(res: ServerResponse, id: Id | null): void {
  wireOf.set(res, { id });
}

/** The vendors' error types by status (both document the same families; Anthropic calls 5xx api_error). */
function errorType(status: number, wire: ErrorWire): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return wire === 'anthropic' ? 'not_found_error' : 'invalid_request_error';
  if (status === 429) return 'rate_limit_error';
  if (status < 500) return 'invalid_request_error';
  return wire === 'anthropic' ? 'api_error' : 'server_error';
}

/** The error body `res` answers with (for a body handed on as a verdict rather than written here). */
export function errorBodyFor(res: ServerResponse, code: ErrorCode, description: string): unknown {
  return errorBody(code, description, wireOf.get(res));
}

function errorBody(code: ErrorCode, description: string, wire: ErrorWire | JsonRpcWire | undefined): unknown {
  const status = errorStatus[code];
  if (typeof wire === 'object')
    return rpcError(wire.id, status < 500 ? InvalidRequest : InternalError, description, { error: code });
  if (wire === 'openai') return { error: { message: description, type: errorType(status, wire), code, param: null } };
  if (wire === 'anthropic') return { type: 'error', error: { type: errorType(status, wire), message: description } };
  return { error: code, error_description: description };
}

/** Answers with `code`; its status comes from the one table in proxy-error.ts. */
export function sendError(
  res: ServerResponse,
  code: ErrorCode,
  description: string,
  headers: Record<string, string> = {},
): void {
  const own = standsFor.get(res) ?? res;
  answeredWith.set(own, code);
  sendJson(res, errorStatus[code], errorBody(code, description, wireOf.get(own)), headers);
}

export function sendProxyError(res: ServerResponse, err: ProxyError): void {
  sendError(res, err.code, err.message, err.headers);
}

/** The error code a response was answered with, for the request metrics; undefined for a normal answer. */
export function errorCodeOf(res: ServerResponse): ErrorCode | undefined {
  return answeredWith.get(res);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
