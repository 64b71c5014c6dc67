// Small HTTP helpers for the auth endpoints: bounded bodies, CORS, base URL. JSON answers and error
// bodies come from the proxy's one helper, re-exported here.
import type { IncomingMessage, ServerResponse } from 'node:http';

export { sendError, sendJson } from '../http/http-error.js';

export class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function readBody(req: IncomingMessage, limit = 64 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyError(413, `The request body is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Discovery and registration are public and carry no cookies, so any origin may call them. */
export const corsHeaders: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'www-authenticate',
};

export function sendPreflight(req: IncomingMessage, res: ServerResponse, methods: string): void {
  const requested = req.headers['access-control-request-headers'];
  res.writeHead(204, {
    ...corsHeaders,
    'access-control-allow-methods': methods,
    'access-control-allow-headers':
      typeof requested === 'string' && requested.length < 1024
        ? requested
        : 'authorization, content-type, mcp-protocol-version',
    'access-control-max-age': '86400',
    vary: 'access-control-request-headers',
  });
  res.end();
}

function firstHeader(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s?.split(',')[0]?.trim() || undefined;
}

/** `{base_url}`: the origin of `resourceMetadata.resource` when set, else Host and X-Forwarded-Proto. */
export function baseUrl(req: IncomingMessage, resource: string | undefined): string {
  if (resource) return new URL(resource).origin;
  const proto = firstHeader(req.headers['x-forwarded-proto']) === 'https' ? 'https' : 'http';
  const host = firstHeader(req.headers.host) ?? 'localhost';
  // A Host header is client input: keep only host[:port] characters so it cannot inject into headers or JSON URLs.
  const safeHost = /^[A-Za-z0-9.\-:[\]]+$/.test(host) ? host : 'localhost';
  return `${proto}://${safeHost}`;
}
