// GwPolicy `frontend.proxyProtocol` on a bind's server: each accepted connection's PROXY header is read
// (proxy-header.ts) before anything else sees the socket — network authorization, the per-source cap, TLS,
// the HTTP/1 or h2c parser — and its source becomes the socket's `remoteAddress` / `remotePort`, so every
// reader of the client's address (networkAuthorization `source`, X-Forwarded-For, the access log's client,
// per-client session caps) gets the client's, not the load balancer's. Behaviour: docs/proxy.md "PROXY protocol".
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { Listener } from '../../ir/types.js';
import type { Problem } from '../../problem.js';
import { readProxyHeader, type Endpoint, type ProxyVersion } from './proxy-header.js';

/** A bind's setting: the header version read, and whether a connection without one is closed. */
export interface ProxySettings {
  version: ProxyVersion;
  strict: boolean;
}

const settingsOf = (p: NonNullable<Listener['proxyProtocol']>): ProxySettings => ({
  version: p.version === 'PROXY_PROTOCOL_V1' ? 1 : 2,
  strict: p.mode !== 'PROXY_PROTOCOL_OPTIONAL',
});

/** Bind → its listeners' setting (checkSnapshot has made sure they agree). */
export function bindProxySettings(listeners: Iterable<Listener>): Map<string, ProxySettings> {
  const out = new Map<string, ProxySettings>();
  for (const l of listeners) if (l.proxyProtocol && !out.has(l.bind)) out.set(l.bind, settingsOf(l.proxyProtocol));
  return out;
}

/** Listeners of one bind that disagree on proxyProtocol (the translator never ships that; a hand-written IR may). */
export function proxyProtocolProblems(listeners: Iterable<Listener>, source: string): Problem[] {
  const first = new Map<string, Listener>();
  const problems: Problem[] = [];
  const key = (l: Listener): string => (l.proxyProtocol ? JSON.stringify(settingsOf(l.proxyProtocol)) : 'none');
  for (const l of listeners) {
    const other = first.get(l.bind);
    if (!other) first.set(l.bind, l);
    else if (key(other) !== key(l))
      problems.push({
        source,
        object: `Listener ${l.name}`,
        path: 'proxyProtocol',
        message: `must be the same as on listener ${other.name}, which shares bind ${l.bind}: the header is read before a listener is known`,
      });
  }
  return problems;
}

/** Sets what a socket reports as its peer (own properties shadow net.Socket's getters). */
function impersonate(socket: Duplex, peer: Endpoint): void {
  Object.defineProperties(socket, {
    remoteAddress: { value: peer.address, configurable: true },
    remotePort: { value: peer.port, configurable: true },
    remoteFamily: { value: peer.family, configurable: true },
  });
}

const peerKey = (s: { remoteAddress?: string | undefined; remotePort?: number | undefined }): string =>
  `${s.remoteAddress ?? ''} ${s.remotePort ?? 0}`;

/**
 * Takes over a server's `connection` listeners (so it must be created after all of them): with a setting, a
 * socket reaches them once its header is read; without, at once. `update` swaps the setting for sockets
 * accepted afterwards.
 */
export class ProxyProtocolGate {
  private settings: ProxySettings | undefined;
  private readonly handlers: ((socket: Duplex) => void)[];
  /** TCP peer → the client its header named, for the TLS sockets made on top (they read the TCP peer). */
  private readonly clients = new Map<string, Endpoint>();

  constructor(
    private readonly server: Server,
    /** HTTPS: TLS reads the put-back bytes itself and the TCP handle from then on; the socket must stay paused. */
    private readonly tls: boolean,
    private readonly timeoutMs: number,
    private readonly log: Logger,
    private readonly onRejected: () => void,
  ) {
    this.handlers = server.listeners('connection') as ((socket: Duplex) => void)[];
    server.removeAllListeners('connection');
    server.on('connection', (socket: Socket) => this.accept(socket));
    server.prependListener('secureConnection', (socket: TLSSocket) => {
      const client = this.clients.get(peerKey(socket));
      if (client) impersonate(socket, client);
    });
  }

  update(settings: ProxySettings | undefined): void {
    this.settings = settings;
  }

  get current(): ProxySettings | undefined {
    return this.settings;
  }

  /** A socket handed back by a CONNECT Tunnel: it carries no header; its peer is already the outer connection's. */
  reenter(socket: Duplex): void {
    this.handOn(socket);
  }

  private handOn(socket: Duplex): void {
    for (const h of this.handlers) h.call(this.server, socket);
  }

  private accept(socket: Socket): void {
    const settings = this.settings;
    if (!settings) return this.handOn(socket);
    readHeader(socket, settings, this.timeoutMs, !this.tls, (outcome) => {
      if (typeof outcome === 'string') {
        this.onRejected();
        this.log.debug({ peer: socket.remoteAddress, reason: outcome }, 'connection closed: PROXY protocol header');
        socket.destroy();
        return;
      }
      if (outcome) {
        const key = peerKey(socket);
        this.clients.set(key, outcome);
        socket.once('close', () => this.clients.delete(key));
        impersonate(socket, outcome);
      }
      this.handOn(socket);
    });
  }
}

/**
 * Reads until the header is known, puts back what follows it, and calls `done` with the client (undefined:
 * none named, or Optional and no header) or why the connection must close. `resume`: the socket flows again
 * after `done` (the HTTP/1 parser and the h2c sniffer read it so).
 */
function readHeader(
  socket: Socket,
  settings: ProxySettings,
  timeoutMs: number,
  resume: boolean,
  done: (outcome: Endpoint | undefined | string) => void,
): void {
  let seen: Buffer = Buffer.alloc(0);
  const finish = (outcome: Endpoint | undefined | string, rest?: Buffer): void => {
    clearTimeout(timer);
    socket.off('data', onData);
    socket.off('error', onError);
    socket.pause();
    if (rest?.length) socket.unshift(rest);
    done(outcome);
    if (resume && typeof outcome !== 'string') socket.resume();
  };
  const onError = (): void => finish('socket error before the header');
  const timer = setTimeout(() => finish(`no PROXY header within ${timeoutMs} ms`), timeoutMs);
  const onData = (chunk: Buffer): void => {
    seen = seen.length ? Buffer.concat([seen, chunk]) : chunk;
    const read = readProxyHeader(seen, settings.version);
    if (read.kind === 'more') return;
    if (read.kind === 'header') finish(read.source, seen.subarray(read.length));
    else if (read.kind === 'none' && !settings.strict) finish(undefined, seen);
    else finish(read.kind === 'none' ? 'no PROXY header' : read.reason);
  };
  socket.on('data', onData);
  socket.on('error', onError);
}
