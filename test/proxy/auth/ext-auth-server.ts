// A real external authorization service on 127.0.0.1 for the traffic.extAuth tests. It decides from the
// headers it is sent: `x-user: alice` or `authorization: Bearer good-token` allows (200, with identity
// headers for the proxy to copy), `x-user: boom` answers 500, any other user is denied with 403 and a JSON
// body, no identity at all gets 401 with WWW-Authenticate, and paths under /login redirect. It records
// every check it receives and can be slowed down.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { readAll, startUpstream, type Upstream } from '../http-forward-harness.js';

export interface CheckSeen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ExtAuthServer {
  port: number;
  checks: CheckSeen[];
  /** Delay every answer to a check whose path contains `/slow` by this many ms. */
  slowMs: number;
  close(): Promise<void>;
}

export async function startExtAuthServer(): Promise<ExtAuthServer> {
  const checks: CheckSeen[] = [];
  const state = { slowMs: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '/';
      checks.push({ method: req.method ?? '', url, headers: req.headers, body: Buffer.concat(chunks).toString() });
      const answer = (): void => {
        const user = req.headers['x-user'];
        if (url.includes('/login')) res.writeHead(302, { location: 'https://login.example/start' }).end();
        else if (user === 'alice' || req.headers.authorization === 'Bearer good-token') {
          res.writeHead(200, { 'x-auth-user': user ?? 'token-holder', 'x-auth-internal': 'do-not-copy' }).end('ok');
        } else if (user === 'boom') res.writeHead(500).end('authorization backend broke');
        else if (user !== undefined)
          res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ denied: user }));
        else
          res
            .writeHead(401, { 'www-authenticate': 'Bearer realm="authz"', 'content-type': 'text/plain' })
            .end('who are you?');
      };
      if (url.includes('/slow') && state.slowMs > 0) setTimeout(answer, state.slowMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    checks,
    get slowMs() {
      return state.slowMs;
    },
    set slowMs(ms: number) {
      state.slowMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The upstream behind the extAuth routes: answers with the URL, headers and body it got, calling `onHit` first. */
export function startEchoUpstream(onHit: () => void): Promise<Upstream> {
  return startUpstream((req, res) => {
    onHit();
    void readAll(req).then((b) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ url: req.url, headers: req.headers, body: b.toString() })),
    );
  });
}

/** A pino destination collecting each line, for asserting what was (and was not) logged. */
export function lineSink(lines: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _e, done) {
      lines.push(chunk.toString());
      done();
    },
  });
}
