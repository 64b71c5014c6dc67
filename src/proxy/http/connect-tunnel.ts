// GwPolicy `frontend.connect.mode: Route`, the tunnel: once a CONNECT has passed its route's stages, the
// route's backend is dialled over TCP (TLS when the edge sets `backend.tls`), the client gets `200`, and
// bytes flow both ways until either side closes. A dynamicForwardProxy backend is dialled at the authority
// the CONNECT names, never at this proxy's own listeners. Behaviour: docs/proxy.md "CONNECT".
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Duplex } from 'node:stream';
import { ProxyError } from '../proxy-error.js';
import { mayRetry, retryDelayMs, sleep } from '../policy/retry.js';
import { delayMs } from '../policy/delay.js';
import { sendError, sendProxyError } from './http-error.js';
import { acceptTunnel } from './connect.js';
import { destinationNotAllowed, destinationOf, isSelf, refusedDestination } from './dynamic-forward.js';
import type { TunnelDialer } from './tunnel-dialer.js';

export type { TunnelDialer } from './tunnel-dialer.js';
import { pickWeighted, type ForwardRoute, type ForwardTarget } from './http-forward.js';
import { tlsFailureReason } from './upstream-tls.js';

/** Where one dial goes: `host` names it (TLS name, logs), `address` is what is connected to. */
interface Dial {
  target: ForwardTarget;
  host: string;
  address: string;
  port: number;
}

class DialTimeout extends Error {}

/** No try connected; `cause` is the last try's failure. */
class DialFailed extends Error {
  constructor(
    readonly backend: string,
    override readonly cause: unknown,
  ) {
    super(`backend ${backend} could not be dialled`);
  }
}

/** Serves a CONNECT that passed its route's stages: a tunnel to the route's backend, or the error answer. */
export async function openTunnel(
  req: IncomingMessage,
  res: ServerResponse,
  route: ForwardRoute | undefined,
  routeName: string,
  d: TunnelDialer,
): Promise<void> {
  if (!route) {
    sendError(
      res,
      'method_not_allowed',
      `route ${routeName} does not tunnel CONNECT: its backend is not a static, a2a or dynamicForwardProxy backend`,
    );
    return;
  }
  const abort = new AbortController();
  const onClose = (): void => abort.abort();
  res.once('close', onClose);
  // timeouts.request bounds the whole setup (retries included); the tunnel itself lasts as long as both sides.
  const timer = route.deadlineMs > 0 ? setTimeout(() => abort.abort(new DialTimeout()), route.deadlineMs) : undefined;
  try {
    const wait = delayMs(route.delay, req);
    if (wait > 0) await sleep(wait, abort.signal);
    const upstream = await dialWithRetries(req, route, d, abort.signal);
    splice(acceptTunnel(res), upstream);
  } catch (err) {
    if (err instanceof ProxyError) sendProxyError(res, err);
    else if (err instanceof DialFailed || err instanceof DialTimeout) failed(res, route, err, d);
  } finally {
    clearTimeout(timer);
    res.off('close', onClose);
  }
}

/** The connected upstream. Throws DialFailed when no try connected, the signal's reason once it aborts. */
async function dialWithRetries(
  req: IncomingMessage,
  route: ForwardRoute,
  d: TunnelDialer,
  signal: AbortSignal,
): Promise<Duplex> {
  for (let tried = 1; ; tried++) {
    if (signal.aborted) throw signal.reason;
    const target = pickWeighted(route.targets, d.random);
    if (!target) throw new ProxyError('no_backend', `route ${route.name} has no backend with a weight above 0`);
    const to = await dialTarget(req, target, d);
    try {
      return await dial(to, d, signal, route.tryDeadlineMs || d.connectTimeoutMs);
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (route.retry && !(err instanceof DialTimeout) && mayRetry(route.retry, tried, 'connect')) {
        d.metrics.upstreamFailures.labels(target.backend, 'connect').inc();
        d.metrics.upstreamRetries.labels(target.backend).inc();
        await sleep(retryDelayMs(route.retry, tried), signal);
        continue;
      }
      throw new DialFailed(target.backend, err);
    }
  }
}

/** Where a target is dialled: its own address, or for a dynamicForwardProxy the CONNECT's authority. */
async function dialTarget(req: IncomingMessage, target: ForwardTarget, d: TunnelDialer): Promise<Dial> {
  if (target.agentCore || target.credential)
    throw new ProxyError(
      'method_not_allowed',
      `backend ${target.backend} takes HTTP requests the proxy signs or adds credentials to; a CONNECT tunnel cannot carry them`,
    );
  if (!target.dynamic) return { target, host: target.host, address: target.host, port: target.port };
  const authority = req.url ?? '';
  const named = /:\d{1,5}$/.test(authority) ? destinationOf(authority, false) : undefined;
  if (!named?.ok)
    throw new ProxyError(
      'invalid_host',
      `CONNECT ${JSON.stringify(authority.slice(0, 300))} does not name host:port; backend ${target.backend} tunnels to the authority it names`,
    );
  const { host, port } = named.destination;
  const address = await d.resolve(host);
  const refused = refusedDestination(address, target.allowed, d.local);
  if (refused) throw destinationNotAllowed(target.backend, host, port, address, refused);
  if (isSelf(address, port, d.selfPorts(), d.local))
    throw new ProxyError('loop_detected', `${host}:${port} is this proxy's own listener; tunnelling to it would loop`);
  return { target: { ...target, host, port }, host, address, port };
}

/** One TCP (or TLS) connection, resolved once it is ready to carry bytes. */
function dial(to: Dial, d: TunnelDialer, signal: AbortSignal, timeoutMs: number): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const tls = to.target.tls;
    const socket = tls
      ? tlsConnect({ ...d.tlsOptions(to.target.backend, to.host, tls), host: to.address, port: to.port })
      : netConnect(to.port, to.address);
    const fail = (err: unknown): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      reject(err instanceof Error ? err : new Error(String(err)));
    };
    const onAbort = (): void => fail(signal.reason);
    const timer = setTimeout(() => fail(new DialTimeout()), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('error', fail);
    socket.once(tls ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.off('error', fail);
      resolve(socket);
    });
  });
}

/** Bytes both ways; when either side closes or fails, both are closed. */
function splice(client: Duplex, upstream: Duplex): void {
  const end = (): void => {
    client.destroy();
    upstream.destroy();
  };
  for (const s of [client, upstream]) {
    s.once('close', end);
    s.on('error', end);
  }
  client.pipe(upstream);
  upstream.pipe(client);
}

/** No try connected: 504 when the deadline passed, else 503 naming the backend (and TLS's reason). */
function failed(res: ServerResponse, route: ForwardRoute, err: DialFailed | DialTimeout, d: TunnelDialer): void {
  const backend = err instanceof DialFailed ? err.backend : (route.targets[0]?.backend ?? '');
  const cause = err instanceof DialFailed ? err.cause : err;
  const timeout = cause instanceof DialTimeout;
  const tls = timeout ? undefined : tlsFailureReason(cause);
  d.metrics.upstreamFailures.labels(backend, timeout ? 'timeout' : tls ? 'tls' : 'connect').inc();
  d.log.warn({ route: route.name, backend, reason: timeout ? 'timeout' : (tls ?? 'connect') }, 'CONNECT tunnel failed');
  if (timeout) sendError(res, 'gateway_timeout', `backend ${backend} did not accept the tunnel in time`);
  else if (tls) sendError(res, 'backend_unavailable', `TLS to backend ${backend} failed: ${tls}`);
  else sendError(res, 'backend_unavailable', `backend ${backend} is unreachable`);
}
