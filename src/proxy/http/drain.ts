// Graceful shutdown of the traffic listeners (docs/proxy.md "Shutdown"). After the minimum delay every
// response closes its connection instead of keeping it alive and long-lived GET event streams are ended so
// their clients reconnect elsewhere; the listeners keep accepting for an accept window (a load balancer that
// is late to notice still reaches a replica that answers), then stop. Requests in flight finish. A keep-alive
// connection is closed only once it has sat idle for IDLE_GRACE_MS: a client that is reusing it sends its next
// request within that time and is answered with `Connection: close`, so the close never races that request.
// Whatever is still open at the maximum delay is cut.
//
// A bind a new snapshot removes or replaces (HTTP to HTTPS on its port) retires its server the same way, alone:
// the port is let go at once, its connections are drained by the same rules and cut at the maximum delay.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/** How long the proxy keeps serving after SIGTERM, and how long it waits for requests in flight. */
export interface DrainPlan {
  /** Keep serving normally (unready) for this long, so load balancers stop sending first. */
  minMs: number;
  /** Cut whatever is still open this long after the signal. */
  maxMs: number;
  /** Close a keep-alive connection once it has been idle this long while draining (IDLE_GRACE_MS). */
  idleGraceMs?: number;
}

/** How long a keep-alive connection must have been idle before a drain closes it. */
export const IDLE_GRACE_MS = 1000;

/** Answers that are event streams a client resumes elsewhere (A2A SubscribeToTask): a drain ends them too. */
const resumable = new WeakSet<ServerResponse>();

/** Marks `res` as a stream its client resumes: a drain ends it like an MCP GET stream. */
export function endsOnDrain(res: ServerResponse): void {
  resumable.add(res);
}

/** An HTTP/1 connection's requests being answered, since when it has answered none, and what it had read then. */
interface SocketUse {
  active: number;
  idleSince: number;
  readAtIdle: number;
  /** The server that accepted it (undefined where the caller did not say). */
  server: Server | undefined;
}

/** A response in flight and the server its request came to. */
interface Open {
  req: IncomingMessage;
  res: ServerResponse;
  server: Server | undefined;
}

/** Responses in flight, so a drain can end the long-lived GET streams among them, and the HTTP/1 connections they use. */
export class InFlight {
  private readonly open = new Set<Open>();
  private readonly sockets = new Map<Socket, SocketUse>();
  /** Servers being retired: responses on their connections close them. */
  private readonly retiring = new Set<Server>();
  /** Set once draining: responses from then on close their connection. */
  closing = false;

  /** A request `server` (the listener it came to) is answering; `server` lets a retired bind drain alone. */
  track(req: IncomingMessage, res: ServerResponse, server?: Server): void {
    if (this.closing || (server && this.retiring.has(server))) res.shouldKeepAlive = false;
    const entry = { req, res, server };
    this.open.add(entry);
    // HTTP/2 streams share their session (GOAWAY ends it); a CONNECT's socket is a tunnel after the 200.
    const use = req.httpVersionMajor < 2 && req.method !== 'CONNECT' ? this.useOf(req.socket, server) : undefined;
    if (use) use.active++;
    res.once('close', () => {
      this.open.delete(entry);
      if (use && --use.active === 0) {
        use.idleSince = Date.now();
        use.readAtIdle = req.socket.bytesRead;
      }
    });
  }

  private useOf(socket: Socket, server: Server | undefined): SocketUse {
    let use = this.sockets.get(socket);
    if (!use) {
      this.sockets.set(socket, (use = { active: 0, idleSince: 0, readAtIdle: 0, server }));
      socket.once('close', () => this.sockets.delete(socket));
    }
    return use;
  }

  /** Ends every GET whose answer is an event stream (an MCP session's stream), and resumable ones; the client reconnects. */
  endEventStreams(of?: Server): number {
    let ended = 0;
    for (const { req, res, server } of this.open) {
      if (of && server !== of) continue;
      // A GET that asked for an event stream (its headers may have gone out with writeHead, unreadable here).
      const getStream = req.method === 'GET' && String(req.headers.accept ?? '').includes('text/event-stream');
      if (!getStream && !resumable.has(res)) continue;
      res.end();
      ended++;
    }
    return ended;
  }

  /** Marks requests already being answered to close their connection when done. */
  closeAfterResponse(): void {
    this.closing = true;
    for (const { res } of this.open) if (!res.headersSent) res.shouldKeepAlive = false;
  }

  /** Closes the HTTP/1 connections (of `of` only, if given) that have answered everything, read nothing since and sat idle for `graceMs`. */
  closeIdleFor(graceMs: number, now = Date.now(), of?: Server): number {
    let closed = 0;
    for (const [socket, use] of this.sockets) {
      if (of && use.server !== of) continue;
      if (use.active > 0 || now - use.idleSince < graceMs) continue;
      // The next request's head is arriving (no `request` event until all of it has): not idle.
      if (socket.bytesRead > use.readAtIdle) continue;
      socket.destroy();
      closed++;
    }
    return closed;
  }

  /**
   * Retires one server (its bind was removed or replaced): it stops accepting at once, its responses close
   * their connections, its event streams end, its idle connections close after `idleGraceMs`, and whatever is
   * still open after `budgetMs` is cut. The others serve on.
   */
  async retire(server: Server, { budgetMs, idleGraceMs }: Omit<DrainPhase, 'acceptMs'>): Promise<'drained' | 'cut'> {
    this.retiring.add(server);
    for (const { res, server: s } of this.open) if (s === server && !res.headersSent) res.shouldKeepAlive = false;
    this.endEventStreams(server);
    // Unref'd: a retired listener never keeps the process alive (its close cuts what is left anyway).
    const sweep = setInterval(() => this.closeIdleFor(idleGraceMs, Date.now(), server), 100).unref();
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      stopAccepting(server).then(() => 'drained' as const),
      new Promise<'cut'>((resolve) => (timer = setTimeout(() => resolve('cut'), Math.max(0, budgetMs)).unref())),
    ]);
    clearInterval(sweep);
    clearTimeout(timer);
    this.retiring.delete(server);
    if (outcome === 'cut') server.closeAllConnections();
    // The HTTP server's own close, skipped by stopAccepting, stops its connection-check timer, which would
    // otherwise keep the server (its TLS contexts, its handlers) alive for the life of the process.
    server.close();
    return outcome;
  }
}

/**
 * Stops accepting without closing idle connections (Node's `Server.close` closes them at once, racing a
 * client that is just sending its next request on one); resolves once every connection has ended.
 */
function stopAccepting(server: Server): Promise<void> {
  return new Promise((resolve) => NetServer.prototype.close.call(server, () => resolve()));
}

/** How a drain's second phase runs: its budget, how long the listeners still accept, when idle connections close. */
export interface DrainPhase {
  budgetMs: number;
  acceptMs: number;
  idleGraceMs: number;
}

/**
 * Drains `servers` within `budgetMs`: responses close their connections and event streams end at once, the
 * listeners accept for `acceptMs` more, idle connections close after `idleGraceMs`; then the rest is cut.
 */
export async function drainServers(
  servers: Server[],
  inFlight: InFlight,
  { budgetMs, acceptMs, idleGraceMs }: DrainPhase,
): Promise<'drained' | 'cut'> {
  inFlight.closeAfterResponse();
  inFlight.endEventStreams();
  const sweep = setInterval(() => inFlight.closeIdleFor(idleGraceMs), 100);
  let accepting: NodeJS.Timeout | undefined;
  let timer: NodeJS.Timeout | undefined;
  const closed = new Promise<void>((resolve) => {
    accepting = setTimeout(
      () => void Promise.all(servers.map(stopAccepting)).then(() => resolve()),
      Math.max(0, Math.min(acceptMs, budgetMs)),
    );
  });
  const outcome = await Promise.race([
    closed.then(() => 'drained' as const),
    new Promise<'cut'>((resolve) => (timer = setTimeout(() => resolve('cut'), Math.max(0, budgetMs)))),
  ]);
  clearInterval(sweep);
  clearTimeout(accepting);
  clearTimeout(timer);
  if (outcome === 'cut')
    for (const s of servers) {
      if (s.listening) NetServer.prototype.close.call(s);
      s.closeAllConnections();
    }
  return outcome;
}
