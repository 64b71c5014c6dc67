// Connection hygiene for every listener the proxy opens: header and request read timeouts, idle
// keep-alive close, and a cap on connections from one source address (ProxyLimits).
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { ProxyLimits } from '../limits.js';
import type { Listener } from '../../ir/types.js';

/** Options for `http(s).createServer`; Node checks the timeouts every second rather than its default 30. */
export function listenerServerOptions(l: ProxyLimits): {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
} {
  return {
    headersTimeout: l.headersTimeoutMs,
    requestTimeout: l.requestTimeoutMs,
    keepAliveTimeout: l.keepAliveTimeoutMs,
    connectionsCheckingInterval: 1000,
  };
}

/** Closes a new connection at once when its source already holds `max` on this listener. */
export function capConnectionsPerSource(server: Server, max: number, log: Logger, onRefused: () => void): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  let warned = false;
  server.on('connection', (socket: Socket) => {
    const source = socket.remoteAddress ?? '';
    const n = (open.get(source) ?? 0) + 1;
    if (n > max) {
      onRefused();
      if (!warned) {
        warned = true;
        log.warn({ max }, 'a source address reached the per-source connection cap; its further connections are closed');
      }
      socket.destroy();
      return;
    }
    open.set(source, n);
    socket.once('close', () => {
      const left = (open.get(source) ?? 1) - 1;
      if (left <= 0) open.delete(source);
      else open.set(source, left);
    });
  });
}

/** Bind → the smallest `frontend.tcp.maxConnections` of its listeners (listeners sharing a port share it). */
export function connectionCaps(listeners: Iterable<Listener>): Map<string, number> {
  const caps = new Map<string, number>();
  for (const l of listeners) {
    const max = l.limits?.maxConnections;
    if (max) caps.set(l.bind, Math.min(max, caps.get(l.bind) ?? Infinity));
  }
  return caps;
}
