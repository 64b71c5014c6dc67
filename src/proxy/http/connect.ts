// Downstream CONNECT (GwPolicy `frontend.connect.mode`, docs/proxy.md "CONNECT"). Node hands an HTTP/1.1
// CONNECT to the server's `connect` event with the raw socket instead of a response; `connectResponse`
// gives it one, so the request walks the pipeline like any other (metrics, access log, the error body).
// The listener the authority's host selects decides: no policy or Deny → 405; Route → the route's stages,
// then a tunnel to its backend (connect-tunnel.ts); Tunnel → 200, and the bytes that follow are served by
// the same bind as a new connection. HTTP/2 CONNECT (RFC 9113 §8.5) is not served: 405 in every mode.
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { sendError } from './http-error.js';

/** A listener's compiled `frontend.connect.mode`; a listener without it answers 405 as Deny does. */
export type ConnectPlan =
  | { mode: 'deny' }
  | { mode: 'route' }
  /** `reenter` serves a socket as a new connection of the listener's bind. */
  | { mode: 'tunnel'; reenter: (socket: Duplex) => void };

/** Responses whose socket became a tunnel: their end must not end the connection. */
const tunnelled = new WeakSet<ServerResponse>();

/**
 * A response on the socket of an HTTP/1.1 CONNECT. `head` (bytes the client sent after the request head)
 * goes back into the socket for the tunnel. Any answer but a tunnel's 200 ends the connection: Node's server
 * gave the socket up with the `connect` event, so nothing else would.
 */
export function connectResponse(req: IncomingMessage, socket: Duplex, head: Buffer): ServerResponse {
  if (head.length > 0) socket.unshift(head);
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  res.once('finish', () => {
    if (!tunnelled.has(res)) socket.end();
  });
  return res;
}

/**
 * The `connect` stage: true when this answered the CONNECT (405, or a Tunnel handed over), false when its
 * route's stages decide (Route).
 */
export function answerConnect(req: IncomingMessage, res: ServerResponse, plan: ConnectPlan | undefined): boolean {
  if (req.httpVersionMajor >= 2) {
    sendError(res, 'method_not_allowed', 'CONNECT over HTTP/2 is not served by this proxy; send it over HTTP/1.1');
    return true;
  }
  if (plan?.mode === 'route') return false;
  if (plan?.mode === 'tunnel') {
    plan.reenter(handOver(res));
    return true;
  }
  sendError(
    res,
    'method_not_allowed',
    plan
      ? `CONNECT ${req.url ?? ''} is denied by the listener's connect policy`
      : `CONNECT ${req.url ?? ''} is not served: the listener has no connect policy`,
  );
  return true;
}

/**
 * Answers `200 Connection Established` and gives the socket to the caller. RFC 9110 §9.3.6: a 2xx answer to
 * CONNECT carries no Content-Length or Transfer-Encoding, and the connection is the tunnel from then on.
 */
export function acceptTunnel(res: ServerResponse): Duplex {
  tunnelled.add(res);
  res.removeHeader('content-length');
  res.removeHeader('transfer-encoding');
  res.removeHeader('connection');
  res.writeHead(200, 'Connection Established');
  res.end();
  return res.socket as Duplex;
}

/**
 * Tunnel mode: the 200, then the socket leaves this response for the new connection it becomes. Node closes a
 * response when its socket closes; this socket lives on, so the CONNECT exchange is closed here.
 */
function handOver(res: ServerResponse): Duplex {
  const socket = acceptTunnel(res);
  res.detachSocket(socket as Socket);
  res.emit('close');
  return socket;
}
