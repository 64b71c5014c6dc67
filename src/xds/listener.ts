// The one TCP port of xDS. In `either` mode the first byte of a connection decides: 0x16 opens a TLS
// handshake (a TLS record of type handshake), anything else is the plaintext HTTP/2 preface. Each
// connection is then handed to the matching grpc-js connection injector.
import net from 'node:net';
import { Duplex } from 'node:stream';
import type { Logger } from 'pino';

export type XdsMode = 'plaintext' | 'tls' | 'either';

export interface Injector {
  injectConnection(connection: Duplex): void;
}

export interface FrontListenerOptions {
  host: string;
  port: number;
  mode: XdsMode;
  plaintext?: Injector;
  tls?: Injector;
  log: Logger;
}

export interface FrontListener {
  readonly port: number;
  close(): Promise<void>;
}

const TLS_HANDSHAKE = 0x16;
const FIRST_BYTE_TIMEOUT_MS = 10_000;

// A socket whose first bytes were read in JS must not be handed to TLS by its native handle (TLS would
// read past the unshifted bytes); a plain Duplex in front makes TLS read through the stream API.
function throughStream(sock: net.Socket): Duplex {
  const d = new Duplex({
    read() {
      sock.resume();
    },
    write(chunk: Buffer, _enc, cb) {
      sock.write(chunk, cb);
    },
    final(cb) {
      sock.end(cb);
    },
    destroy(err, cb) {
      sock.destroy(err ?? undefined);
      cb(err);
    },
  });
  sock.on('data', (chunk: Buffer) => {
    if (!d.push(chunk)) sock.pause();
  });
  sock.on('end', () => d.push(null));
  sock.on('error', (err) => d.destroy(err));
  sock.on('close', () => d.destroy());
  return d;
}

export async function listenFront(opts: FrontListenerOptions): Promise<FrontListener> {
  const sockets = new Set<net.Socket>();
  const route = (sock: net.Socket) => {
    if (opts.mode === 'plaintext') return opts.plaintext!.injectConnection(sock);
    if (opts.mode === 'tls') return opts.tls!.injectConnection(sock);
    sock.setTimeout(FIRST_BYTE_TIMEOUT_MS, () => sock.destroy());
    sock.once('readable', () => {
      sock.setTimeout(0);
      const first = sock.read(1) as Buffer | null;
      if (first === null) return void sock.destroy();
      sock.unshift(first);
      if (first[0] === TLS_HANDSHAKE) opts.tls!.injectConnection(throughStream(sock));
      else opts.plaintext!.injectConnection(sock);
    });
  };
  const server = net.createServer((sock) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    // A reset by the peer must never become an unhandled 'error' event.
    sock.on('error', (err) => opts.log.debug({ err: err.message, remote: sock.remoteAddress }, 'xds connection error'));
    route(sock);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
