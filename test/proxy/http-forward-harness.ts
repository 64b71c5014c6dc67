// Real node:http upstreams and an in-process proxy runtime serving HTTP routes to them, on 127.0.0.1:0.
import {
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { normalizeSnapshot } from '../../src/ir/load.js';
import type { BackendInput, ResourceInput, RouteInput } from '../../src/ir/types.js';
import { ProxyRuntime, type RuntimeOptions } from '../../src/proxy/runtime.js';

export const log = pino({ level: process.env.TEST_LOG ?? 'silent' });

export interface Upstream {
  server: Server;
  port: number;
  close(): Promise<void>;
}

export async function startUpstream(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Upstream> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface RouteSpec {
  name: string;
  prefix: string;
  backends: { name: string; weight: number }[];
  timeouts?: RouteInput['timeouts'];
  maxRequestBytes?: number;
}

/** A runtime with one bind on 127.0.0.1:0, one listener and the given routes and backends. */
export async function startForwardProxy(
  routes: RouteSpec[],
  backends: BackendInput[],
  opts: Partial<RuntimeOptions> = {},
): Promise<{ runtime: ProxyRuntime; base: string }> {
  const runtime = new ProxyRuntime({ log, ...opts });
  const resources: ResourceInput[] = [
    { bind: { name: 'b', port: 0, address: '127.0.0.1' } },
    { listener: { name: 'l', bind: 'b', protocol: 'HTTP' } },
    ...routes.map((r): ResourceInput => ({
      route: {
        name: r.name,
        listeners: ['l'],
        matches: [{ prefix: r.prefix }],
        backends: r.backends.map((b) => ({ backend: b.name, weight: b.weight })),
        ...(r.timeouts ? { timeouts: r.timeouts } : {}),
        ...(r.maxRequestBytes ? { policy: { maxRequestBytes: r.maxRequestBytes } } : {}),
      },
    })),
    ...backends.map((backend): ResourceInput => ({ backend })),
  ];
  await runtime.apply(normalizeSnapshot({ version: '1', resources }));
  return { runtime, base: `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}` };
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** node:http client with no agent: unlike fetch it sends any header (Connection, TE, Proxy-*) as given. */
export function rawRequest(
  url: string,
  o: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: o.method ?? 'GET', headers: o.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

export function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function waitUntil(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const tick = (): void => {
      if (check()) resolve();
      else if (Date.now() > deadline) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(tick, 10);
    };
    tick();
  });
}
