// GwPolicy frontend settings that act on a connection before a request names its listener, so they hold
// per port (the smallest value any listener on the port sets): TCP keepalive, the HTTP/1.1 idle timeout,
// the maximum connection age (closed after its current request), and Node's header-count parse bound.
import type { Server, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Listener } from '../../ir/types.js';

/** One port's settings; unset ones keep the proxy's defaults. */
export interface BindConnectionSettings {
  keepaliveMs?: number;
  idleTimeoutMs?: number;
  maxAgeMs?: number;
  /** The largest http1MaxHeaders of the port's listeners: Node must parse that many to let the listener decide. */
  parseHeaders?: number;
  /** frontend.http.http2*: SETTINGS, connection window and pings of h2 connections (HTTPS binds). */
  h2: H2Settings;
}

/** The `ListenerLimits.http2*` fields, smallest per port. */
export interface H2Settings {
  windowSize?: number;
  connectionWindowSize?: number;
  frameSize?: number;
  maxHeaderSize?: number;
  keepaliveIntervalMs?: number;
  keepaliveTimeoutMs?: number;
}

function smallestH2(s: H2Settings, lim: Listener['limits']): H2Settings {
  return {
    windowSize: smallest(s.windowSize, lim?.http2WindowSize),
    connectionWindowSize: smallest(s.connectionWindowSize, lim?.http2ConnectionWindowSize),
    frameSize: smallest(s.frameSize, lim?.http2FrameSize),
    maxHeaderSize: smallest(s.maxHeaderSize, lim?.http2MaxHeaderSize),
    keepaliveIntervalMs: smallest(s.keepaliveIntervalMs, lim?.http2KeepaliveIntervalMs),
    keepaliveTimeoutMs: smallest(s.keepaliveTimeoutMs, lim?.http2KeepaliveTimeoutMs),
  };
}

const smallest = (a: number | undefined, b: number | null | undefined): number | undefined =>
  b ? Math.min(a ?? Infinity, b) : a;

/** Bind → its connection settings, from the listeners' `limits`. */
export function bindConnectionSettings(listeners: Iterable<Listener>): Map<string, BindConnectionSettings> {
  const out = new Map<string, BindConnectionSettings>();
  for (const l of listeners) {
    const s = out.get(l.bind) ?? { h2: {} };
    const lim = l.limits;
    const next: BindConnectionSettings = {
      keepaliveMs: smallest(s.keepaliveMs, lim?.keepaliveTimeMs),
      idleTimeoutMs: smallest(s.idleTimeoutMs, lim?.http1IdleTimeoutMs),
      maxAgeMs: smallest(s.maxAgeMs, lim?.maxConnectionDurationMs),
      parseHeaders: Math.max(s.parseHeaders ?? 0, lim?.http1MaxHeaders ?? 0) || undefined,
      h2: smallestH2(s.h2, lim),
    };
    out.set(l.bind, next);
  }
  return out;
}

/** Per-connection state of the maximum-age rule. */
interface Conn {
  inFlight: Set<ServerResponse>;
  aged: boolean;
}

/** The live settings of one server; `update` swaps them for connections accepted afterwards (and the server's timeouts now). */
export class ConnectionSettings {
  private settings: BindConnectionSettings = { h2: {} };
  private readonly conns = new WeakMap<Socket, Conn>();

  constructor(
    private readonly server: Server,
    private readonly defaultIdleMs: number,
    /** `connection` for plain servers; `secureConnection` for TLS ones (the socket requests arrive on). */
    socketEvent: 'connection' | 'secureConnection',
  ) {
    // Keepalive on the TCP socket itself (a TLS socket's wrapper has no keepalive of its own).
    server.on('connection', (socket: Socket) => {
      if (this.settings.keepaliveMs) socket.setKeepAlive(true, this.settings.keepaliveMs);
    });
    server.on(socketEvent, (socket: Socket) => this.onSocket(socket));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.onRequest(req, res));
  }

  update(settings: BindConnectionSettings | undefined): void {
    this.settings = settings ?? { h2: {} };
    this.server.keepAliveTimeout = this.settings.idleTimeoutMs ?? this.defaultIdleMs;
    // Past this count Node 20 drops header fields silently and Node 22+ answers a bare 431 itself: at least one
    // more than any listener allows (and never below Node's default) lets the pipeline see the excess and answer.
    this.server.maxHeadersCount = Math.max(2000, (this.settings.parseHeaders ?? 0) + 1);
  }

  get h2(): H2Settings {
    return this.settings.h2;
  }

  private onSocket(socket: Socket): void {
    const { maxAgeMs } = this.settings;
    if (!maxAgeMs) return;
    const conn: Conn = { inFlight: new Set(), aged: false };
    this.conns.set(socket, conn);
    const timer = setTimeout(() => {
      conn.aged = true;
      for (const res of conn.inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
      if (conn.inFlight.size === 0) socket.end();
    }, maxAgeMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    const conn = this.conns.get(socket);
    if (!conn) return;
    if (conn.aged && !res.headersSent) res.setHeader('connection', 'close');
    conn.inFlight.add(res);
    res.once('close', () => {
      conn.inFlight.delete(res);
      // A response that went out before the connection aged carried keep-alive: end it here instead.
      if (conn.aged && conn.inFlight.size === 0 && !socket.destroyed) socket.end();
    });
  }
}
