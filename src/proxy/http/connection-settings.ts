// GwPolicy frontend settings that act on a connection before a request names its listener, so they hold
// per port (the smallest value any listener on the port sets): TCP keepalive, the HTTP/1.1 idle timeout,
// the maximum connection age (closed after its current request), and Node's header-count parse bound.
import type { Server, IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { Problem } from '../../problem.js';
import type { Listener, Route } from '../../ir/types.js';
import type { UpstreamTcp__Output as UpstreamTcp } from '../../ir/gen/gw/ir/v1/UpstreamTcp.js';

/** One port's settings; unset ones keep the proxy's defaults. */
export interface BindConnectionSettings {
  keepaliveMs?: number;
  /** frontend.tcp.keepalive.interval and .retries (Node 24's setKeepAlive takes both). */
  keepaliveIntervalMs?: number;
  keepaliveProbes?: number;
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
      keepaliveIntervalMs: smallest(s.keepaliveIntervalMs, lim?.keepaliveIntervalMs),
      keepaliveProbes: smallest(s.keepaliveProbes, lim?.keepaliveProbes),
      idleTimeoutMs: smallest(s.idleTimeoutMs, lim?.http1IdleTimeoutMs),
      maxAgeMs: smallest(s.maxAgeMs, lim?.maxConnectionDurationMs),
      parseHeaders: Math.max(s.parseHeaders ?? 0, lim?.http1MaxHeaders ?? 0) || undefined,
      h2: smallestH2(s.h2, lim),
    };
    out.set(l.bind, next);
  }
  return out;
}

/** Node 24's setKeepAlive(enable, initialDelay, interval, count); 0 keeps the platform's value. */
type KeepaliveEx = (enable: boolean, initialDelayMs: number, intervalMs: number, count: number) => Socket;

/** Whether this Node can set the keepalive probe interval and count (nodejs/node#63825, Node 24). */
const probesSupported = Socket.prototype.setKeepAlive.length >= 4;
export const keepaliveProbesSupported = (): boolean => probesSupported;

/**
 * TCP keepalive on `socket`: idle time, then (Node 24) probe interval and count; 0 keeps the platform's.
 * Callers refuse an interval or count on an older Node before they get here (keepaliveProblems).
 */
export function setKeepalive(socket: Socket, timeMs: number, intervalMs = 0, probes = 0): void {
  if ((intervalMs || probes) && probesSupported)
    (socket.setKeepAlive as KeepaliveEx).call(socket, true, timeMs, intervalMs, probes);
  else socket.setKeepAlive(true, timeMs);
}

/** The schema's defaults (180s, 9), which every keepalive policy carries unless it sets its own. */
const DEFAULT_INTERVAL_MS = 180_000;
const DEFAULT_PROBES = 9;

/**
 * Listeners asking for a keepalive interval or probe count other than the defaults on a Node that cannot
 * set them (before 24): refused by name. The defaults alone are served there with Node's own probes (1 s ×
 * 10), which docs/proxy.md says; the image runs Node 24.
 */
export function keepaliveProblems(
  listeners: Iterable<Listener>,
  source: string,
  supported = keepaliveProbesSupported(),
): Problem[] {
  if (supported) return [];
  const out: Problem[] = [];
  for (const l of listeners) {
    const asked = [
      ['keepaliveIntervalMs', 'interval', l.limits?.keepaliveIntervalMs, DEFAULT_INTERVAL_MS],
      ['keepaliveProbes', 'retries', l.limits?.keepaliveProbes, DEFAULT_PROBES],
    ] as const;
    for (const [field, schemaField, value, dflt] of asked)
      if (value && value !== dflt)
        out.push({
          source,
          object: `Listener ${l.name}`,
          path: `limits.${field}`,
          message: `frontend.tcp.keepalive.${schemaField} needs Node 24 or later (TCP keepalive interval and probe count); this proxy runs on Node ${process.versions.node}`,
        });
  }
  return out;
}

/**
 * Route edges asking for an upstream keepalive interval or probe count (`backend.tcp.keepalive`) on a Node
 * that cannot set them: refused by name, like the listeners' (the upstream dialer would apply only `time`).
 */
export function upstreamKeepaliveProblems(
  routes: Iterable<Route>,
  source: string,
  supported = keepaliveProbesSupported(),
): Problem[] {
  if (supported) return [];
  const out: Problem[] = [];
  for (const r of routes)
    r.backends.forEach((b, i) => {
      const all: [string, UpstreamTcp | null | undefined][] = [
        [`backends[${i}].tcp`, b.tcp],
        ...Object.entries(b.targetTcp ?? {}).map(([t, tcp]): [string, UpstreamTcp] => [
          `backends[${i}].targetTcp.${t}`,
          tcp,
        ]),
        ...Object.entries(b.ai?.providers ?? {}).map(([p, e]): [string, UpstreamTcp | null] => [
          `backends[${i}].ai.providers.${p}.tcp`,
          e.tcp,
        ]),
      ];
      for (const [path, tcp] of all)
        if (tcp?.keepaliveIntervalMs || tcp?.keepaliveProbes)
          out.push({
            source,
            object: `Route ${r.name}`,
            path,
            message: `backend.tcp.keepalive interval and retries need Node 24 or later (TCP keepalive interval and probe count); this proxy runs on Node ${process.versions.node}`,
          });
    });
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
      const { keepaliveMs, keepaliveIntervalMs, keepaliveProbes } = this.settings;
      if (!keepaliveMs) return;
      // Node 24; an older Node gets here only with the defaults (checkSnapshot refuses other values).
      setKeepalive(socket, keepaliveMs, keepaliveIntervalMs, keepaliveProbes);
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
