// Request-level helpers of the MCP endpoint: content negotiation and reading the body within the
// route's limit (the session a request names: session-resume.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError } from '../http/http-error.js';

export const sessionHeader = 'mcp-session-id';

/** Media types an Accept header admits, parsed once per distinct header (clients send the same one every call). */
const acceptCache = new Map<string, { json: boolean; sse: boolean }>();

export function acceptance(header: string): { json: boolean; sse: boolean } {
  let a = acceptCache.get(header);
  if (a) return a;
  const types = header.split(',').map((part) => part.split(';')[0]?.trim().toLowerCase());
  const admits = (type: string): boolean =>
    types.some((t) => t === type || t === '*/*' || t === `${type.split('/')[0]}/*`);
  a = { json: admits('application/json'), sse: admits('text/event-stream') };
  if (acceptCache.size >= 256) acceptCache.clear(); // bounded: a client cannot grow it without limit
  acceptCache.set(header, a);
  return a;
}

/** The body in one buffer; listeners instead of an async iterator, which cost a promise per chunk. */
export function readBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) return Promise.resolve(tooLarge(req, res, limit));
  return new Promise((resolve, reject) => {
    let first: Buffer | undefined;
    let chunks: Buffer[] | undefined;
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData).off('end', onEnd);
        resolve(tooLarge(req, res, limit));
        return;
      }
      if (first === undefined) first = chunk;
      else (chunks ??= [first]).push(chunk);
    };
    const onEnd = (): void => resolve(chunks ? Buffer.concat(chunks, size) : (first ?? Buffer.alloc(0)));
    req.on('data', onData).once('end', onEnd).once('error', reject);
  });
}

function tooLarge(req: IncomingMessage, res: ServerResponse, limit: number): undefined {
  sendError(res, 'payload_too_large', `the request body exceeds ${limit} bytes`, { connection: 'close' });
  req.resume();
  return undefined;
}

export function isJsonType(header: string | undefined): boolean {
  if (header === undefined) return false;
  if (header === 'application/json') return true;
  return header.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

export function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
