// HTTP/2 with prior knowledge (h2c, RFC 9113 §3.3) beside HTTP/1.1 on one plain port. Node's http2
// server has no mixed mode, so each new connection's first bytes are read: the client connection
// preface `PRI * HTTP/2.0…` sends the socket to the http2 server, anything else to the HTTP/1 server.
import type { Socket } from 'node:net';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/** `h2` once the whole preface is seen, `more` while the bytes could still become it, else `http1`. */
export function prefaceState(bytes: Buffer): 'h2' | 'http1' | 'more' {
  const n = Math.min(bytes.length, PREFACE.length);
  if (!bytes.subarray(0, n).equals(PREFACE.subarray(0, n))) return 'http1';
  return bytes.length >= PREFACE.length ? 'h2' : 'more';
}

/**
 * Waits for enough bytes to tell the protocols apart, puts them back, and hands the socket on. A socket
 * that sends nothing for `timeoutMs` is closed (the HTTP/1 server's header timeout starts only at handoff).
 */
export function sniffPreface(
  socket: Socket,
  timeoutMs: number,
  onH2: (s: Socket) => unknown,
  onHttp1: (s: Socket) => void,
): void {
  let seen: Buffer = Buffer.alloc(0);
  const onError = (): void => void socket.destroy();
  const timer = setTimeout(() => socket.destroy(), timeoutMs);
  const onData = (chunk: Buffer): void => {
    seen = seen.length ? Buffer.concat([seen, chunk]) : chunk;
    const state = prefaceState(seen);
    if (state === 'more') return;
    clearTimeout(timer);
    socket.off('data', onData);
    socket.off('error', onError);
    socket.off('close', onClose);
    socket.pause();
    socket.unshift(seen);
    if (state === 'h2') onH2(socket);
    else {
      onHttp1(socket);
      // The HTTP/1 parser reads from the handle; the put-back bytes flow to it only once the socket resumes.
      socket.resume();
    }
  };
  const onClose = (): void => clearTimeout(timer);
  socket.on('data', onData);
  socket.on('error', onError);
  socket.once('close', onClose);
}
