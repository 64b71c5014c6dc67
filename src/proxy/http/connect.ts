// Downstream CONNECT: Node hands a CONNECT request to the server's 'connect' event with the raw socket
// instead of the request handler, and closes the connection when nothing listens. The seed's error table
// gives 405 for a CONNECT with no `connect` policy; the frontend `connect` policy itself is refused, so
// every CONNECT is answered 405 with the proxy's error body, then the connection is closed.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorStatus } from '../proxy-error.js';

export function refuseConnect(req: IncomingMessage, socket: Duplex): void {
  const body = JSON.stringify({
    error: 'method_not_allowed',
    error_description: `CONNECT ${req.url ?? ''} is not served: no listener here has a connect policy`,
  });
  socket.end(
    `HTTP/1.1 ${errorStatus.method_not_allowed} Method Not Allowed\r\n` +
      'content-type: application/json\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      'connection: close\r\n\r\n' +
      body,
  );
}
