// How the HTTP forwarder dials a backend whose edge sets `backend.tunnel` or `backend.tcp`: one undici
// dispatcher per (backend, host, settings), closed once idle. A tunnel is an HTTP forward proxy: CONNECT
// (then the backend's TLS inside it) or, in Auto mode for plaintext backends, absolute-form requests sent
// to the proxy. Behaviour: docs/proxy.md "Tunnels".
import { createHash } from 'node:crypto';
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import { Agent, buildConnector } from './undici.js';
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
  plan.tunnel !== undefined && !plan.tunnel.connectAlways && plan.tls === undefined;

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

  private build(plan: DialPlan): Agent {
    const timeout = plan.tcp?.connectTimeoutMs || this.opts.connectTimeoutMs;
    const keepAliveInitialDelay = plan.tcp?.keepaliveTimeMs || 60_000;
    const { servername, ...tls } = plan.tls ?? {};
    const base = buildConnector({ timeout, keepAlive: true, keepAliveInitialDelay, ...tls });
    const tunnel = plan.tunnel;
    const connect: Undici.buildConnector.connector =
      !tunnel || absoluteForm(plan)
        ? (o, cb) => base(plan.tls ? { ...o, servername: servername ?? '' } : o, cb)
        : (o, cb) => {
            openTunnel(tunnel, `${o.hostname}:${o.port}`, timeout).then(
              (socket) => {
                socket.setKeepAlive(true, keepAliveInitialDelay);
                if (o.protocol !== 'https:') cb(null, socket);
                else base({ ...o, servername: servername ?? '', httpSocket: socket }, cb);
              },
              (err: Error) => cb(err, null),
            );
          };
    return new Agent({
      connect,
      headersTimeout: this.opts.headersTimeoutMs,
      bodyTimeout: 0,
      keepAliveTimeout: 30_000,
      connections: 1024,
    });
  }
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
function planKey(backend: string, host: string, plan: DialPlan): string {
  const h = createHash('sha256');
  const t = plan.tunnel;
  for (const part of [
    host,
    t ? `${t.host} ${t.port} ${t.tls} ${t.connectAlways} ${t.proxyAuthorization}` : '',
    `${plan.tcp?.connectTimeoutMs ?? 0} ${plan.tcp?.keepaliveTimeMs ?? 0}`,
    plan.tlsSettings ? JSON.stringify(plan.tlsSettings) : '',
  ])
    h.update(String(part)).update('\0');
  return `${backend}\0${h.digest('hex')}`;
}
