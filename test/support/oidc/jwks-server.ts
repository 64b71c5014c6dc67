// A signing-key endpoint on 127.0.0.1 whose key set and health a test controls (rotation, outages).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JWK } from 'jose';

export interface JwksServer {
  url: string;
  /** Requests served so far. */
  hits: number;
  /** Keys published from now on. */
  setKeys(keys: JWK[]): void;
  /** When down, answers 503. */
  setDown(down: boolean): void;
  close(): Promise<void>;
}

export async function startJwksServer(keys: JWK[]): Promise<JwksServer> {
  let current = keys;
  let down = false;
  const state = { hits: 0 };
  const server = createServer((_req, res) => {
    state.hits++;
    if (down) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: current }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/keys`,
    get hits() {
      return state.hits;
    },
    setKeys(k) {
      current = k;
    },
    setDown(d) {
      down = d;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
