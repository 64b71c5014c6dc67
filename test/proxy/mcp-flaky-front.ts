// A loopback front for an MCP server that fails chosen JSON-RPC requests on purpose: it answers 503, drops
// the connection before passing the request on, drops it after the target answered, or cuts the answer's
// SSE stream after its first event. It counts what it saw and what reached the target, per method.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** `503`: answered by the front; `drop`: closed before the target saw it; `after`: closed once the target answered; `cut`: first SSE chunk relayed, then closed. */
export type Fault = '503' | 'drop' | 'after' | 'cut';

export interface FlakyFront {
  port: number;
  /** The next requests with this JSON-RPC method meet these faults, in order; later ones pass. */
  fail(method: string, ...faults: Fault[]): void;
  seen(method: string): number;
  reached(method: string): number;
  reset(): void;
  close(): Promise<void>;
}

export async function startFlakyFront(target: URL): Promise<FlakyFront> {
  const faults = new Map<string, Fault[]>();
  const seen = new Map<string, number>();
  const reached = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string): void => {
    m.set(k, (m.get(k) ?? 0) + 1);
  };

  const pass = (
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    method: string,
    fault: Fault | undefined,
  ): void => {
    bump(reached, method);
    const up = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        if (fault === 'after') {
          answer.resume();
          answer.on('end', () => res.socket?.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (fault === 'cut') {
          answer.once('data', (chunk: Buffer) => {
            res.write(chunk);
            setTimeout(() => {
              answer.destroy();
              res.socket?.destroy();
            }, 20);
          });
          return;
        }
        answer.pipe(res);
      },
    );
    up.on('error', () => res.socket?.destroy());
    up.end(body);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let method = req.method ?? 'GET';
      try {
        const m = JSON.parse(body.toString()) as { method?: unknown };
        if (typeof m.method === 'string') method = m.method;
      } catch {
        // Not JSON (GET, DELETE): counted under the HTTP method.
      }
      bump(seen, method);
      const fault = faults.get(method)?.shift();
      if (fault === '503') return void res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      if (fault === 'drop') return void req.socket.destroy();
      pass(req, res, body, method, fault);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    fail: (method, ...f) => {
      faults.set(method, [...(faults.get(method) ?? []), ...f]);
    },
    seen: (m) => seen.get(m) ?? 0,
    reached: (m) => reached.get(m) ?? 0,
    reset: () => {
      faults.clear();
      seen.clear();
      reached.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
