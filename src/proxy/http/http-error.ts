// The one place HTTP error bodies are written: `{ error, error_description }`, never a stack or secret.
import type { ServerResponse } from 'node:http';
import { errorStatus, type ErrorCode, type ProxyError } from '../proxy-error.js';

const answeredWith = new WeakMap<ServerResponse, ErrorCode>();

/** Answers with `code`; its status comes from the one table in proxy-error.ts. */
export function sendError(
  res: ServerResponse,
  code: ErrorCode,
  description: string,
  headers: Record<string, string> = {},
): void {
  answeredWith.set(res, code);
  sendJson(res, errorStatus[code], { error: code, error_description: description }, headers);
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
