// The proxy's admin address (`--admin-address`, loopback by default): the web UI's static files and its
// read-only JSON API `/ui/api/v1/…` (docs/ui.md). Off loopback every API call needs the bearer token from
// `--admin-token-file` (a mounted Secret); no cookies, so a page of another origin cannot ride on a login.
// On loopback without a token the Host header must name loopback, so a DNS-rebound page cannot read it.
import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { sendError } from '../http/http-error.js';
import { bindFailure, parseAddress } from '../ops.js';
import { hostnameOf, isLoopbackName, sameOrigin } from '../net/loopback.js';

export const API_PREFIX = '/ui/api/v1/';

/** One API call: its query, and a signal that aborts when the client goes away (a long poll stops waiting). */
export interface ApiCall {
  query: URLSearchParams;
  signal: AbortSignal;
}

/**
 * What the API reads; each entry returns plain data that is safe to show (src/proxy/admin/view.ts), or a
 * promise of it. An entry with `post` also takes a JSON body by POST: a pure evaluation that changes nothing.
 */
export type AdminApi = Record<string, ((call: ApiCall) => unknown) & { post?: (body: unknown) => unknown }>;

/** The most a POSTed body may hold. */
const MAX_BODY = 64 * 1024;

export interface AdminServer {
  port: number;
  close(): Promise<void>;
}

export interface AdminOptions {
  address: string;
  /** File holding the bearer token (a mounted Secret); required when `address` is not loopback. */
  tokenFile?: string;
  /** The built single-page app (dist/ui). */
  uiDir: string;
  api: AdminApi;
}

const STATIC: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/ui/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/ui/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/ui/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};

// The playground calls the routes themselves, on the gateway's own ports: connect-src allows http(s).
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' http: https:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

function readToken(file: string): Buffer {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new Error(`--admin-token-file ${file}: ${(err as NodeJS.ErrnoException).code ?? 'cannot be read'}`);
  }
  if (text.length < 16) throw new Error(`--admin-token-file ${file}: the token must be at least 16 characters`);
  return Buffer.from(text);
}

function bearerMatches(req: IncomingMessage, token: Buffer): boolean {
  const m = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
  if (!m) return false;
  const given = Buffer.from(m[1] as string);
  return given.length === token.length && timingSafeEqual(given, token);
}

function serveStatic(res: ServerResponse, uiDir: string, path: string): void {
  const entry = STATIC[path];
  if (!entry)
    return sendError(res, 'not_found', `the admin address serves the UI under /ui/ and its API under ${API_PREFIX}`);
  let body: Buffer;
  try {
    body = readFileSync(normalize(join(uiDir, entry.file)));
  } catch {
    return sendError(res, 'not_found', 'the UI is not built: run `npm run build`');
  }
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': entry.type }).end(body);
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error(`the body is larger than ${MAX_BODY} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(new Error('the body is not JSON'));
      }
    });
    req.on('error', reject);
  });
}

async function answer(req: IncomingMessage, res: ServerResponse, entry: AdminApi[string], url: URL): Promise<unknown> {
  if (req.method === 'POST') return entry.post?.(await readBody(req));
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  return entry({ query: url.searchParams, signal: gone.signal });
}

async function serveApi(req: IncomingMessage, res: ServerResponse, api: AdminApi, url: URL): Promise<void> {
  const entry = Object.hasOwn(api, url.pathname.slice(API_PREFIX.length))
    ? api[url.pathname.slice(API_PREFIX.length)]
    : undefined;
  if (!entry) return sendError(res, 'not_found', `no such API: ${url.pathname}`);
  if (req.method === 'POST' && !entry.post)
    return sendError(res, 'method_not_allowed', 'the admin UI and its API are read-only (GET)');
  // A JSON body from another origin needs a CORS preflight this server never grants.
  if (req.method === 'POST' && !/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
    return sendError(res, 'bad_request', 'POST a JSON body with `Content-Type: application/json`');
  let body: string;
  try {
    body = JSON.stringify(await answer(req, res, entry, url));
  } catch (err) {
    if (req.method === 'POST') return sendError(res, 'bad_request', (err as Error).message);
    return sendError(res, 'internal_error', 'the view could not be built');
  }
  if (!res.destroyed) res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'application/json' }).end(body);
}

function handler(opts: AdminOptions, token: Buffer | undefined) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://admin.invalid');
    const path = url.pathname;
    const post = req.method === 'POST' && path.startsWith(API_PREFIX);
    if (req.method !== 'GET' && req.method !== 'HEAD' && !post)
      return sendError(res, 'method_not_allowed', 'the admin UI and its API are read-only (GET)');
    const host = hostnameOf(req.headers.host ?? '');
    if (!token && !(host !== undefined && isLoopbackName(host)))
      return sendError(res, 'forbidden', 'without an admin token the UI answers only to a loopback Host');
    if (!path.startsWith(API_PREFIX)) return serveStatic(res, opts.uiDir, path);
    // Same origin only: a page elsewhere gets no answer it could read, token or not.
    const origin = req.headers.origin;
    if (origin !== undefined && !sameOrigin(origin, req.headers.host ?? ''))
      return sendError(res, 'forbidden', 'the admin API answers its own origin only');
    if (token && !bearerMatches(req, token))
      return sendError(res, 'unauthorized', 'the admin API needs `Authorization: Bearer <admin token>`');
    void serveApi(req, res, opts.api, url);
  };
}

export async function startAdmin(opts: AdminOptions): Promise<AdminServer> {
  const parsed = parseAddress(opts.address);
  if (!parsed) throw new Error(`--admin-address ${opts.address}: must look like host:port`);
  if (!opts.tokenFile && !isLoopbackName((parsed.host ?? '').toLowerCase()))
    throw new Error(`--admin-address ${opts.address}: off loopback the admin UI needs --admin-token-file`);
  const token = opts.tokenFile ? readToken(opts.tokenFile) : undefined;
  const server: Server = createServer(handler(opts, token));
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(`--admin-address ${opts.address}: ${bindFailure(err)}`)),
    );
    server.listen(parsed.port, parsed.host, () => resolve((server.address() as AddressInfo).port));
  });
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
