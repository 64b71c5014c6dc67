// HTTP/2 to backends whose edge asks for it (`backend.http.version: HTTP2`): prior knowledge (h2c) on
// http, ALPN `h2` on https with the edge's TLS settings. node:http2 rather than undici, because undici's
// HTTP/2 client drops response trailers, which gRPC needs (its status travels in them). One session per
// origin and TLS settings, many streams on it; a session that closes or gets GOAWAY is replaced on the next
// request. Bounded, so a dynamic forward proxy naming many hosts cannot grow it without end. Every session's
// connection is dialled by the one upstream dialer (upstream-dial.ts, through http2.connect's
// createConnection): the edge's tunnel (always CONNECT: absolute form is HTTP/1.1's), connect timeout and
// keepalive apply as on HTTP/1.1 edges, and an https session must have selected h2 by ALPN.
import http2, { type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import type { Readable } from 'node:stream';
import { CONNECTION_SPECIFIC } from './h2-compat.js';
import { dialSocket, H2_ONLY, type DialPlan } from './upstream-dial.js';
import type { CallSignal } from './call-signal.js';

const MAX_SESSIONS = 256;
/** RFC 9113 §8.2.2: connection-specific fields must not appear in HTTP/2; `host` becomes `:authority`. */
const NOT_IN_H2 = new Set([...CONNECTION_SPECIFIC, 'host']);

export type Headers = Record<string, string | string[] | undefined>;

export interface UpstreamRequest {
  origin: string;
  path: string;
  method: string;
  headers: Headers;
  body: Readable | Buffer | null;
  signal: CallSignal;
}

/** The part of undici's ResponseData the forwarder reads; `trailers` is filled by the time the body ends. */
export interface UpstreamResponse {
  statusCode: number;
  headers: Headers;
  body: Readable & { dump(): Promise<void> };
  trailers: Headers;
  /** The HTTP/2 response was its HEADERS frame alone (END_STREAM on it): gRPC's trailers-only answer. */
  endedWithHeaders?: boolean;
}

export interface H2UpstreamsOptions {
  connectTimeoutMs: number;
}

/** A session being dialled, then open; `session` is set once it is. */
interface Entry {
  dialled: Promise<ClientHttp2Session>;
  session?: ClientHttp2Session;
}

export class H2Upstreams {
  private readonly sessions = new Map<string, Entry>();

  constructor(private readonly opts: H2UpstreamsOptions) {}

  /**
   * One request on the session for `key` (the origin and the plan's identity, upstream-dial.ts dialKey);
   * `plan.tls` unset means h2c.
   */
  async request(key: string, req: UpstreamRequest, plan: DialPlan = {}): Promise<UpstreamResponse> {
    const session = await this.session(key, req.origin, plan);
    if (req.signal.aborted) throw req.signal.reason as Error;
    return new Promise((resolve, reject) => {
      const headers: http2.OutgoingHttpHeaders = {
        ':method': req.method,
        ':path': req.path,
        ':authority': String(req.headers.host ?? new URL(req.origin).host),
      };
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined || NOT_IN_H2.has(name) || name.startsWith(':')) continue;
        if (name === 'te' && String(value).toLowerCase() !== 'trailers') continue;
        headers[name] = value;
      }
      const stream = session.request(headers, { endStream: req.body === null });
      const onAbort = (): void => {
        stream.close(http2.constants.NGHTTP2_CANCEL);
        reject(req.signal.reason as Error);
      };
      if (req.signal.aborted) return onAbort();
      req.signal.addEventListener('abort', onAbort, { once: true });
      stream.once('close', () => req.signal.removeEventListener('abort', onAbort));
      const trailers: Headers = {};
      stream.on('trailers', (t: IncomingHttpHeaders) => Object.assign(trailers, withoutPseudo(t)));
      stream.once('error', reject);
      stream.once('response', (h: IncomingHttpHeaders, flags: number) => {
        stream.off('error', reject);
        const body = Object.assign(stream as unknown as Readable, {
          dump: () =>
            new Promise<void>((done) => {
              stream.once('close', () => done());
              stream.resume();
            }),
        });
        resolve({
          statusCode: Number(h[':status'] ?? 502),
          headers: withoutPseudo(h),
          body,
          trailers,
          endedWithHeaders: (flags & http2.constants.NGHTTP2_FLAG_END_STREAM) !== 0,
        });
      });
      const body = req.body;
      if (Buffer.isBuffer(body)) stream.end(body);
      else if (body) body.pipe(stream);
    });
  }

  async close(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(
      all.map(async (e) => {
        const s = await e.dialled.catch(() => undefined);
        if (s) await new Promise<void>((done) => (s.destroyed ? done() : s.close(() => done())));
      }),
    );
  }

  private session(key: string, origin: string, plan: DialPlan): Promise<ClientHttp2Session> {
    const live = this.sessions.get(key);
    if (live && (!live.session || (!live.session.closed && !live.session.destroyed))) {
      // Most recently used last: the first entry is the one to close when the map is full.
      this.sessions.delete(key);
      this.sessions.set(key, live);
      return live.dialled;
    }
    if (this.sessions.size >= MAX_SESSIONS) {
      const [oldest, e] = this.sessions.entries().next().value as [string, Entry];
      this.sessions.delete(oldest);
      void e.dialled.then((s) => s.close()).catch(() => undefined);
    }
    const entry: Entry = { dialled: this.dial(key, origin, plan) };
    entry.dialled.then(
      (s) => (entry.session = s),
      () => this.sessions.get(key) === entry && this.sessions.delete(key),
    );
    this.sessions.set(key, entry);
    return entry.dialled;
  }

  /** A session over a connection of the one upstream dialer; it leaves the map when it closes or gets GOAWAY. */
  private async dial(key: string, origin: string, plan: DialPlan): Promise<ClientHttp2Session> {
    const url = new URL(origin);
    const https = url.protocol === 'https:';
    const timeout = plan.tcp?.connectTimeoutMs || this.opts.connectTimeoutMs;
    const h2Plan: DialPlan = {
      ...plan,
      ...(plan.tunnel ? { tunnel: { ...plan.tunnel, connectAlways: true } } : {}),
      ...(plan.tls ? { tls: { ALPNProtocols: ['h2'], ...plan.tls } } : {}),
    };
    const to = { host: url.hostname, port: Number(url.port) || (https ? 443 : 80), https };
    const socket = await dialSocket(h2Plan, to, timeout, H2_ONLY);
    const s = http2.connect(origin, { createConnection: () => socket });
    // Errors reach the streams that use the session; a session that ends is replaced on the next request.
    s.on('error', () => undefined);
    const drop = (): void => {
      if (this.sessions.get(key)?.session === s) this.sessions.delete(key);
    };
    s.once('close', drop);
    s.once('goaway', drop);
    return s;
  }
}

function withoutPseudo(h: IncomingHttpHeaders): Headers {
  const out: Headers = {};
  for (const [k, v] of Object.entries(h)) if (!k.startsWith(':')) out[k] = v;
  return out;
}
