// HTTP/2 on a bind. HTTPS binds: the `https` server still does the TLS handshake (so SNI certificates and
// the per-listener ALPN choice stay in listener-tls.ts), and a connection that negotiated `h2` is handed
// to a non-listening `http2` server whose compat request/response objects reach the same request handler.
// Node's http2 secure server cannot be used instead: it forces its own ALPN list, which would make
// `frontend.tls.alpnProtocols` unenforceable per listener. Plain binds: a connection that opens with the
// HTTP/2 preface (prior knowledge, h2c-preface.ts) goes to the same http2 server, any other to HTTP/1.1.
import { createServer as createH2Server, type Http2Server, type Http2Session, type Settings } from 'node:http2';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { sniffPreface } from './h2c-preface.js';
import type { H2Settings } from './connection-settings.js';
import { IDLE_GRACE_MS } from './drain.js';

const MAX_WINDOW = 2 ** 31 - 1;
const clamp = (v: number | undefined, min: number, max: number): number | undefined =>
  v === undefined ? undefined : Math.min(max, Math.max(min, v));

/** SETTINGS values within what HTTP/2 allows (RFC 9113 §6.5.2): a frame size of `16kb` (16000) becomes 16384. */
export function h2SettingsOf(s: H2Settings): Settings {
  const window = clamp(s.windowSize, 0, MAX_WINDOW);
  const frame = clamp(s.frameSize, 16_384, 16_777_215);
  const header = clamp(s.maxHeaderSize, 0, 2 ** 32 - 1);
  return {
    ...(window !== undefined ? { initialWindowSize: window } : {}),
    ...(frame !== undefined ? { maxFrameSize: frame } : {}),
    ...(header !== undefined ? { maxHeaderListSize: header } : {}),
  };
}

/** The HTTP/2 side of one bind: its sessions, for shutdown and for settings pushed on apply. */
export class H2Sessions {
  private readonly server: Http2Server;
  private readonly sessions = new Set<Http2Session>();
  /** Plain connections whose first bytes have not arrived yet (h2c-preface.ts). */
  private readonly unsorted = new Set<Socket>();
  private settings: H2Settings = {};
  /** Set by closeGracefully: a session opened from then on ends after its first stream. */
  private draining = false;

  /** `server` is an `https` server (h2 by ALPN) or a plain `http` one (h2c by preface, read within `prefaceTimeoutMs`). */
  constructor(
    server: Server,
    handler: (req: IncomingMessage, res: ServerResponse) => void,
    plain?: { prefaceTimeoutMs: number },
  ) {
    this.server = createH2Server();
    // The compat objects are duck-typed like HTTP/1's; the pipeline reads only what both have (see docs/proxy.md).
    this.server.on('request', handler as unknown as (req: unknown, res: unknown) => void);
    // An h2 CONNECT (RFC 9113 §8.5) goes to the same handler, whose pipeline answers it (405).
    this.server.on('connect', handler as unknown as (req: unknown, res: unknown) => void);
    this.server.on('session', (s: Http2Session) => {
      this.sessions.add(s);
      s.once('close', () => this.sessions.delete(s));
      if (this.draining) this.endAfterFirstStream(s);
      this.configure(s);
    });
    const toH2 = (socket: Socket): boolean => this.server.emit('connection', socket);
    // Both servers register exactly one listener of this event at construction: HTTP/1.1's connection handler.
    const event = plain ? 'connection' : 'secureConnection';
    const http1 = server.listeners(event)[0] as ((s: Socket) => void) | undefined;
    server.removeAllListeners(event);
    const toHttp1 = (socket: Socket): void => void http1?.call(server, socket);
    if (plain) server.on('connection', (socket: Socket) => this.sniff(socket, plain.prefaceTimeoutMs, toH2, toHttp1));
    else
      server.on('secureConnection', (socket: TLSSocket) =>
        socket.alpnProtocol === 'h2' ? toH2(socket) : toHttp1(socket),
      );
  }

  /**
   * A plain connection until its first bytes hand it to a server: neither server tracks it yet, so shutdown
   * (destroyAll) closes it here instead of waiting out the preface timeout for a client that sent nothing.
   */
  private sniff(socket: Socket, timeoutMs: number, toH2: (s: Socket) => unknown, toHttp1: (s: Socket) => void): void {
    this.unsorted.add(socket);
    const sorted = (): void => {
      this.unsorted.delete(socket);
      socket.off('close', sorted);
    };
    socket.once('close', sorted);
    sniffPreface(
      socket,
      timeoutMs,
      (s) => (sorted(), toH2(s)),
      (s) => (sorted(), toHttp1(s)),
    );
  }

  /** frontend.http.http2* for new sessions; open sessions keep theirs. */
  update(settings: H2Settings): void {
    this.settings = settings;
    this.server.updateSettings(h2SettingsOf(settings));
  }

  /** The connection window, and PINGs every interval: one unanswered for the timeout (default 20 s) closes it. */
  private configure(session: Http2Session): void {
    const { connectionWindowSize, keepaliveIntervalMs, keepaliveTimeoutMs } = this.settings;
    const window = clamp(connectionWindowSize, 65_535, MAX_WINDOW);
    if (window !== undefined) session.once('connect', () => session.setLocalWindowSize(window));
    if (!keepaliveIntervalMs) return;
    const timer = setInterval(() => {
      const deadline = setTimeout(() => session.destroy(), keepaliveTimeoutMs || 20_000);
      const sent = session.ping(() => clearTimeout(deadline));
      if (!sent) clearTimeout(deadline);
    }, keepaliveIntervalMs);
    timer.unref();
    session.once('close', () => clearInterval(timer));
  }

  get open(): number {
    return this.sessions.size;
  }

  /** A session opened while draining: GOAWAY after its first stream, or after IDLE_GRACE_MS if it opens none. */
  private endAfterFirstStream(s: Http2Session): void {
    const idle = setTimeout(() => s.close(), IDLE_GRACE_MS);
    s.once('stream', () => (clearTimeout(idle), s.close()));
    s.once('close', () => clearTimeout(idle));
  }

  /** GOAWAY: streams in flight finish, no new ones start; the session ends when they are done. */
  closeGracefully(): void {
    this.draining = true;
    for (const s of this.sessions) s.close();
  }

  destroyAll(): void {
    for (const s of this.sessions) s.destroy();
    for (const socket of this.unsorted) socket.destroy();
  }
}
