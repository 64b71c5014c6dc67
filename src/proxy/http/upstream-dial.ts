// The one upstream dialer of edges whose settings undici's own connector cannot apply: `backend.tunnel`
// (an HTTP forward proxy: CONNECT, then the backend's TLS inside it, or in Auto mode for plaintext backends
// absolute-form requests sent to the proxy), `backend.tcp` (connect timeout, keepalive with probe interval
// and count) and `backend.tls.alpnProtocols` (undici always offers its own ALPN list). One undici dispatcher
// per (backend, host, settings), closed once idle; HTTP/2 upstreams (h2-upstream.ts) dial through `dialSocket` too.
// Behaviour: docs/proxy.md "Tunnels".
import { createHash } from 'node:crypto';
import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import { Agent } from './undici.js';
import { setKeepalive } from './connection-settings.js';
import type { BackendTls } from '../../ir/types.js';
import type { UpstreamTcp__Output as UpstreamTcp } from '../../ir/gen/gw/ir/v1/UpstreamTcp.js';
import type { UpstreamTunnel__Output as UpstreamTunnel } from '../../ir/gen/gw/ir/v1/UpstreamTunnel.js';

export type { UpstreamTcp, UpstreamTunnel };

/** An edge's dialer settings; `tls` are the backend's TLS options (upstream-tls.ts), unset for plain HTTP. */
export interface DialPlan {
  tunnel?: UpstreamTunnel;
  tcp?: UpstreamTcp;
  tls?: ConnectionOptions;
  /** The TLS settings `tls` was made from: part of the dispatcher's identity. */
  tlsSettings?: BackendTls;
  /**
   * Clients of their own (MCP targets): HTTP2 speaks HTTP/2 through undici's HTTP/2 client (prior knowledge on
   * http, ALPN h2 alone on https), HTTP1 HTTP/1.1 alone (h2 left out of an ALPN list); unset: what the backend
   * selects of the ALPN list, HTTP/1.1 without one.
   */
  version?: 'HTTP1' | 'HTTP2';
}

/** The forward proxy answered CONNECT (or an absolute-form request) with `status`: nothing reached the backend. */
export class TunnelRefused extends Error {
  readonly code = 'ERR_GW_TUNNEL_REFUSED';
  constructor(
    readonly proxy: string,
    readonly status: number,
  ) {
    super(`the forward proxy ${proxy} refused the tunnel with status ${status}`);
  }
}

/** Whether requests of this plan go to the proxy in absolute form (Auto mode, plaintext backend). */
export const absoluteForm = (plan: DialPlan): boolean =>
  plan.tunnel !== undefined && !plan.tunnel.connectAlways && plan.tlsSettings === undefined && plan.version !== 'HTTP2';

/** The connection settings of one upstream as the IR carries them (an edge, an MCP target, an AI provider). */
export interface UpstreamConnection {
  tunnel?: UpstreamTunnel | null;
  tcp?: UpstreamTcp | null;
  tls?: BackendTls | null;
  /** `backend.http.version` of a client of its own (an MCP target); HTTP forwarding edges use h2-upstream.ts. */
  httpVersion?: 'HTTP1' | 'HTTP2';
}

/** The dial plan of these settings; `tlsOptions` makes Node's TLS options of the settings (upstream-tls.ts). */
export function dialPlan(c: UpstreamConnection, tlsOptions: (tls: BackendTls) => ConnectionOptions): DialPlan {
  const plan: DialPlan = {
    ...(c.tunnel ? { tunnel: c.tunnel } : {}),
    ...(c.tcp ? { tcp: c.tcp } : {}),
    ...(c.tls && !c.tls.workloadIdentity ? { tls: alpnFor(tlsOptions(c.tls), c.httpVersion), tlsSettings: c.tls } : {}),
    ...(c.httpVersion ? { version: c.httpVersion } : {}),
  };
  const identityTls = c.tls?.workloadIdentity ? c.tls : undefined;
  if (identityTls) {
    plan.tlsSettings = identityTls;
    // Made at each dial: a rotated workload identity reaches new connections (and none is made without one).
    Object.defineProperty(plan, 'tls', {
      get: () => alpnFor(tlsOptions(identityTls), c.httpVersion),
      enumerable: true,
    });
  }
  return plan;
}

/** The ALPN list a version asks for: h2 alone for HTTP2, the list without h2 (else http/1.1) for HTTP1. */
function alpnFor(tls: ConnectionOptions, version: UpstreamConnection['httpVersion']): ConnectionOptions {
  if (version === 'HTTP2') return { ...tls, ALPNProtocols: ['h2'] };
  if (version !== 'HTTP1') return tls;
  const offered = ((tls.ALPNProtocols ?? []) as string[]).filter((p) => p !== 'h2');
  return { ...tls, ALPNProtocols: offered.length ? offered : ['http/1.1'] };
}

/** Whether an upstream's settings need this dialer rather than a plain agent or the TLS pool (upstream-tls.ts). */
export const needsDialer = (s: UpstreamConnection): boolean =>
  !!s.tunnel || !!s.tcp || !!s.tls?.alpnProtocols?.length || s.httpVersion === 'HTTP2';

/** `host:port` of the proxy, for messages (never its credential). */
export const proxyName = (t: UpstreamTunnel): string => `${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}`;

interface Entry {
  agent: Agent;
  lastUsed: number;
}

export class UpstreamDialers {
  private readonly entries = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly opts: { connectTimeoutMs: number; headersTimeoutMs: number; idleCloseMs?: number }) {
    const idle = opts.idleCloseMs ?? 5 * 60_000;
    this.sweeper = setInterval(() => this.sweep(Date.now() - idle), Math.max(1000, Math.floor(idle / 2)));
    this.sweeper.unref();
  }

  /** The dispatcher for `backend` at `host` with this plan; built on first use, then reused. */
  dispatcher(backend: string, host: string, plan: DialPlan): Dispatcher {
    const key = planKey(backend, host, plan);
    let e = this.entries.get(key);
    if (!e) this.entries.set(key, (e = { agent: this.build(plan), lastUsed: 0 }));
    e.lastUsed = Date.now();
    return e.agent;
  }

  private sweep(before: number): void {
    for (const [key, e] of this.entries) {
      if (e.lastUsed >= before) continue;
      this.entries.delete(key);
      e.agent.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const agents = [...this.entries.values()].map((e) => e.agent);
    this.entries.clear();
    await Promise.all(agents.map((a) => a.destroy()));
  }

  /**
   * The dispatcher for a client that sends origin-form requests (MCP targets, AI providers): in Auto mode
   * to a plaintext upstream its requests go to the proxy in absolute form, with the proxy's credential.
   */
  routed(backend: string, host: string, plan: DialPlan): Dispatcher {
    const d = this.dispatcher(backend, host, plan);
    const t = plan.tunnel;
    if (!t || !absoluteForm(plan)) return d;
    return d.compose((dispatch) => (opts, handler) => {
      const origin = new URL(String(opts.origin)).origin;
      const headers = withHeaders(opts.headers, {
        host: new URL(origin).host,
        ...(t.proxyAuthorization ? { 'proxy-authorization': t.proxyAuthorization } : {}),
      });
      return dispatch({ ...opts, origin: proxyOrigin(t), path: `${origin}${opts.path}`, headers }, handler);
    });
  }

  private build(plan: DialPlan): Agent {
    const timeout = plan.tcp?.connectTimeoutMs || this.opts.connectTimeoutMs;
    const h2 = plan.version === 'HTTP2';
    const connect: Undici.buildConnector.connector = (o, cb) => {
      const to = {
        host: o.hostname,
        port: Number(o.port) || (o.protocol === 'https:' ? 443 : 80),
        https: o.protocol === 'https:',
      };
      dialSocket(plan, to, timeout, h2 ? H2_ONLY : SPOKEN).then(
        (socket) => (h2 ? h2Socket(socket, to.https, cb) : cb(null, socket)),
        (err: Error) => cb(err, null),
      );
    };
    return new Agent({
      connect,
      headersTimeout: this.opts.headersTimeoutMs,
      bodyTimeout: 0,
      keepAliveTimeout: 30_000,
      connections: 1024,
      ...(h2 ? { allowH2: true } : {}),
    });
  }
}

/** `http(s)://host:port` of the forward proxy. */
export const proxyOrigin = (t: UpstreamTunnel): string => `${t.tls ? 'https' : 'http'}://${proxyName(t)}`;

/** Undici request headers (an object or a flat array) with `extra` set where the caller did not set them. */
function withHeaders(
  headers: Dispatcher.DispatchOptions['headers'],
  extra: Record<string, string>,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (Array.isArray(headers))
    for (let i = 0; i + 1 < headers.length; i += 2) out[String(headers[i]).toLowerCase()] = String(headers[i + 1]);
  else if (headers && typeof headers === 'object')
    for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>))
      if (v !== undefined) out[k.toLowerCase()] = v;
  for (const [k, v] of Object.entries(extra)) if (k === 'proxy-authorization' || out[k] === undefined) out[k] = v;
  return out;
}

/** Protocols the proxy's upstream clients speak after a handshake (undici speaks both; node:http2 only h2). */
const SPOKEN = new Set(['http/1.1', 'h2']);
/** What an HTTP/2 connection may select: h2 alone. */
export const H2_ONLY: ReadonlySet<string> = new Set(['h2']);

/**
 * Hands an HTTP/2 connection to undici, whose client speaks HTTP/2 on a socket whose `alpnProtocol` is h2 (as
 * its own connector marks an h2c one): prior knowledge on plain TCP; over TLS the server must have selected h2
 * (one without ALPN would otherwise be spoken to in HTTP/1.1).
 */
function h2Socket(socket: Socket, https: boolean, cb: Parameters<Undici.buildConnector.connector>[1]): void {
  const tls = socket as Socket & { alpnProtocol?: string | false | null };
  if (!https) tls.alpnProtocol = 'h2';
  else if (tls.alpnProtocol !== 'h2') {
    socket.destroy();
    cb(
      Object.assign(new Error('the backend selected no ALPN protocol; HTTP/2 (http.version HTTP2) needs h2'), {
        code: 'ERR_GW_ALPN_UNSPOKEN',
      }),
      null,
    );
    return;
  }
  cb(null, socket);
}

/**
 * One connection to `to` with the plan's settings: direct or through the tunnel, keepalive set, then TLS
 * when `to.https` (the plan's options, its ALPN list offered as written). Everything, the tunnel's
 * set-up and the TLS handshake included, must finish within `timeoutMs`.
 */
export async function dialSocket(
  plan: DialPlan,
  to: { host: string; port: number; https: boolean },
  timeoutMs: number,
  speaks: ReadonlySet<string> = SPOKEN,
): Promise<Socket> {
  const deadline = Date.now() + timeoutMs;
  const host = to.host.replace(/^\[(.*)\]$/, '$1');
  const authority = `${host.includes(':') ? `[${host}]` : host}:${to.port}`;
  const tunnel = plan.tunnel && !absoluteForm(plan) ? plan.tunnel : undefined;
  const socket = tunnel ? await openTunnel(tunnel, authority, timeoutMs) : await openTcp(host, to.port, timeoutMs);
  const tcp = plan.tcp;
  setKeepalive(socket, tcp?.keepaliveTimeMs || 60_000, tcp?.keepaliveIntervalMs, tcp?.keepaliveProbes);
  if (!to.https) return socket;
  // In absolute form the TLS is the proxy's own (an https proxy URL): system roots, its host name.
  const tls = plan.tls && !absoluteForm(plan) ? plan.tls : { servername: isIP(host) ? '' : host };
  return secure(socket, tls, Math.max(1, deadline - Date.now()), speaks);
}

function connectTimeout(what: string): Error {
  return Object.assign(new Error(`${what} timed out`), { code: 'UND_ERR_CONNECT_TIMEOUT' });
}

/** A TCP connection, or a connect timeout error (the socket destroyed). */
function openTcp(host: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(connectTimeout(`connecting to ${host}:${port}`));
    }, timeoutMs);
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
  });
}

/** TLS over `socket` with these options; the protocol the server selects must be one the client speaks. */
function secure(
  socket: Socket,
  opts: ConnectionOptions,
  timeoutMs: number,
  speaks: ReadonlySet<string>,
): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ ...opts, ALPNProtocols: opts.ALPNProtocols ?? ['http/1.1'], socket });
    const fail = (err: Error): void => {
      clearTimeout(timer);
      s.destroy();
      socket.destroy();
      reject(err);
    };
    const timer = setTimeout(() => fail(connectTimeout('the TLS handshake')), timeoutMs);
    s.once('error', fail);
    s.once('secureConnect', () => {
      const chosen = s.alpnProtocol;
      if (chosen && !speaks.has(chosen)) {
        fail(
          Object.assign(new Error(`the backend selected ALPN protocol ${chosen}, which this client does not speak`), {
            code: 'ERR_GW_ALPN_UNSPOKEN',
          }),
        );
        return;
      }
      clearTimeout(timer);
      s.off('error', fail);
      resolve(s);
    });
  });
}

const MAX_RESPONSE_HEAD = 16 * 1024;

/** A socket to `authority` through the forward proxy: CONNECT answered 2xx, or an error (TunnelRefused, timeout). */
export function openTunnel(t: UpstreamTunnel, authority: string, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket: Socket = t.tls
      ? tlsConnect({ host: t.host, port: t.port, servername: t.host })
      : tcpConnect({ host: t.host, port: t.port });
    const fail = (err: Error): void => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    const timer = setTimeout(
      () =>
        fail(
          Object.assign(new Error(`connecting through the forward proxy ${proxyName(t)} timed out`), {
            code: 'UND_ERR_CONNECT_TIMEOUT',
          }),
        ),
      timeoutMs,
    );
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_RESPONSE_HEAD) fail(new TunnelRefused(proxyName(t), 0));
        return;
      }
      socket.off('data', onData);
      // Paused until its client reads: bytes the backend sends first (an HTTP/2 server's SETTINGS) would
      // otherwise be emitted to no listener and lost before the client attaches.
      socket.pause();
      socket.off('error', fail);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString('latin1'))?.[1] ?? 0);
      if (status < 200 || status > 299) {
        fail(new TunnelRefused(proxyName(t), status));
        return;
      }
      clearTimeout(timer);
      const rest = head.subarray(end + 4);
      if (rest.length) socket.unshift(rest);
      resolve(socket);
    };
    socket.on('data', onData);
    socket.on('error', fail);
    socket.once(t.tls ? 'secureConnect' : 'connect', () => {
      const auth = t.proxyAuthorization ? `Proxy-Authorization: ${t.proxyAuthorization}\r\n` : '';
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth}\r\n`);
    });
  });
}

/** The plan's identity: a hash, so the map never holds the proxy credential or key material as a string key. */
export function planKey(backend: string, host: string, plan: DialPlan): string {
  const h = createHash('sha256');
  const t = plan.tunnel;
  const tcp = plan.tcp;
  for (const part of [
    host,
    t ? `${t.host} ${t.port} ${t.tls} ${t.connectAlways} ${t.proxyAuthorization}` : '',
    `${tcp?.connectTimeoutMs ?? 0} ${tcp?.keepaliveTimeMs ?? 0} ${tcp?.keepaliveIntervalMs ?? 0} ${tcp?.keepaliveProbes ?? 0}`,
    plan.tlsSettings ? JSON.stringify(plan.tlsSettings) : '',
    plan.version ?? '',
  ])
    h.update(String(part)).update('\0');
  return `${backend}\0${h.digest('hex')}`;
}
