// A tiny round-robin HTTP balancer for tests: each request (not each connection) goes to the next
// backend, so consecutive calls of one MCP session land on different proxy replicas. Stands in for a
// Kubernetes Service with no session affinity; bodies and SSE streams are piped through unchanged.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Balancer {
  url: string;
  /** Requests sent to each backend, by index. */
  hits: number[];
  close(): Promise<void>;
}

export async function startBalancer(backends: string[], path = '/mcp'): Promise<Balancer> {
  const targets = backends.map((u) => new URL(u));
  const hits = targets.map(() => 0);
  let next = 0;
  const server: Server = createServer((req, res) => {
    const i = next++ % targets.length;
    hits[i] = (hits[i] ?? 0) + 1;
    const to = targets[i] as URL;
    const up = request(
      { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.on('error', () => res.headersSent || res.writeHead(502).end());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
