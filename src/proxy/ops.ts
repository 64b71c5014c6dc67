// Operations endpoints: readiness (`/healthz/ready`) and Prometheus metrics (`/metrics`), each on its
// own address so they can be exposed differently from traffic.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendError } from './http/http-error.js';

export interface OpsServers {
  readyPort: number;
  metricsPort: number;
  close(): Promise<void>;
}

/** Parses `host:port`, `[v6]:port` or `:port` (all interfaces). */
export function parseAddress(value: string): { host: string | undefined; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(value);
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port > 65535) return undefined;
  const host = m[1] ?? m[2];
  return { host: host === '' ? undefined : host, port };
}

/** Binds `server`; a failure is one line naming the flag: `--ready-address 127.0.0.1:15021: the port is in use`. */
function listen(server: Server, address: string, flag: string): Promise<number> {
  const parsed = parseAddress(address);
  if (!parsed) return Promise.reject(new Error(`${flag} ${address}: must look like host:port`));
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(new Error(`${flag} ${address}: ${bindFailure(err)}`)));
    server.listen(parsed.port, parsed.host, () => resolve((server.address() as AddressInfo).port));
  });
}

export async function startOps(opts: {
  readyAddress: string;
  metricsAddress: string;
  isReady(): boolean;
  /** A registry, or anything that renders metrics text (the workers' primary aggregates theirs). */
  registry: { metrics(): Promise<string>; contentType: string };
}): Promise<OpsServers> {
  const ready = createServer((req, res) => {
    if (req.url?.split('?')[0] !== '/healthz/ready')
      return sendError(res, 'not_found', 'only /healthz/ready is served here');
    if (!opts.isReady()) return sendError(res, 'not_ready', 'no configuration has been applied yet');
    // x-gw-pid: a run script checks that readiness comes from the process it started, not another on the port.
    res.writeHead(200, { 'content-type': 'text/plain', 'x-gw-pid': String(process.pid) }).end('ready\n');
  });
  const metrics = createServer((req, res) => {
    if (req.url?.split('?')[0] !== '/metrics') return sendError(res, 'not_found', 'only /metrics is served here');
    opts.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': opts.registry.contentType }).end(text),
      () => sendError(res, 'internal_error', 'metrics collection failed'),
    );
  });
  const servers = [ready, metrics];
  try {
    const readyPort = await listen(ready, opts.readyAddress, '--ready-address');
    const metricsPort = await listen(metrics, opts.metricsAddress, '--metrics-address');
    return { readyPort, metricsPort, close: () => closeAll(servers) };
  } catch (err) {
    await closeAll(servers);
    throw err;
  }
}

/** A bind error as a reason a user can act on. */
export function bindFailure(err: NodeJS.ErrnoException): string {
  if (err.code === 'EADDRINUSE') return 'the port is already in use (another process listens there)';
  if (err.code === 'EACCES') return 'binding the port is not permitted (a port below 1024 needs privileges)';
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') return 'the host is not an address of this machine';
  return err.message;
}

async function closeAll(servers: Server[]): Promise<void> {
  await Promise.all(
    servers.map(
      (s) =>
        new Promise<void>((resolve) => {
          if (!s.listening) return resolve();
          s.close(() => resolve());
          s.closeAllConnections();
        }),
    ),
  );
}
