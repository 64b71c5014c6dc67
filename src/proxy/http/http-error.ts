// The one place HTTP error bodies are written: `{ error, error_description }`, never a stack or secret.
import type { ServerResponse } from 'node:http';

export function sendError(
  res: ServerResponse, status: number, error: string, description: string, headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error, error_description: description }, headers);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
