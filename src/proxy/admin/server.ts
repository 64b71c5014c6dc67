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

/** What the API reads; each call returns plain data that is safe to show (src/proxy/admin/view.ts). */
export type AdminApi = Record<string, () => unknown>;

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

function serveApi(req: IncomingMessage, res: ServerResponse, api: AdminApi, path: string): void {
  const read = api[path.slice(API_PREFIX.length)];
  if (!read) return sendError(res, 'not_found', `no such API: ${path}`);
  let body: string;
  try {
    body = JSON.stringify(read());
  } catch {
    return sendError(res, 'internal_error', 'the view could not be built');
  }
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'application/json' }).end(body);
}

function handler(opts: AdminOptions, token: Buffer | undefined) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0] as string;
    if (req.method !== 'GET' && req.method !== 'HEAD')
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
    serveApi(req, res, opts.api, path);
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
