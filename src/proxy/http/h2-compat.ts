// The one place HTTP/2 requests are made to look like HTTP/1.1 ones for the pipeline: Node's compat
// objects carry `:authority` instead of `Host`, and throw on HTTP/1 connection-specific response headers
// (`Connection: close`, `Keep-Alive`, an SSE library's `Connection: keep-alive`), which HTTP/2 forbids.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** Headers RFC 9113 §8.2.2 forbids in HTTP/2 (`te` is allowed only as `trailers`). */
export const CONNECTION_SPECIFIC = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
]);

const allowed = (name: string, value: unknown): boolean => {
  const n = name.toLowerCase();
  return !CONNECTION_SPECIFIC.has(n) && !(n === 'te' && String(value).toLowerCase() !== 'trailers');
};

function filtered(headers: unknown): unknown {
  if (!headers || typeof headers !== 'object' || Array.isArray(headers)) return headers;
  return Object.fromEntries(Object.entries(headers as OutgoingHttpHeaders).filter(([k, v]) => allowed(k, v)));
}

/** Adapts an HTTP/2 compat request/response in place; HTTP/1.x ones are left alone. */
export function adaptHttp2(req: IncomingMessage, res: ServerResponse): void {
  if (req.httpVersionMajor < 2) return;
  const authority = req.headers[':authority'];
  if (req.headers.host === undefined && typeof authority === 'string') req.headers.host = authority;
  const setHeader = res.setHeader.bind(res);
  res.setHeader = (name: string, value: number | string | readonly string[]) =>
    allowed(name, value) ? setHeader(name, value) : res;
  const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => ServerResponse;
  res.writeHead = ((status: number, ...rest: unknown[]) =>
    writeHead(status, ...rest.map((r) => (typeof r === 'string' ? r : filtered(r))))) as ServerResponse['writeHead'];
}

/** `https` or `http` for X-Forwarded-Proto: HTTP/2 requests say it themselves, HTTP/1 ones by their socket. */
export function requestScheme(req: IncomingMessage): 'http' | 'https' {
  const scheme = (req as { scheme?: unknown }).scheme;
  if (req.httpVersionMajor >= 2 && (scheme === 'https' || scheme === 'http')) return scheme;
  return 'encrypted' in req.socket ? 'https' : 'http';
}
