// Controller operations endpoints: health on one port (`/healthz` = the process answers, `/readyz` =
// every readiness check passes) and Prometheus `/metrics` on another, from the registry the xDS server
// also registers on. Both modes (local and cluster) use this.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface ControllerMetrics {
  registry: Registry;
  translateDuration: Histogram<'mode'>;
  reconcileErrors: Counter<'reconciler'>;
  /** 1 while this replica does the leader's work (status, deployer); local mode always does. */
  leader: Gauge;
}

export function createControllerMetrics(registry: Registry = new Registry()): ControllerMetrics {
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    translateDuration: new Histogram({
      name: 'gw_translate_duration_seconds',
      help: 'Time to translate changed objects into gateway snapshots.',
      labelNames: ['mode'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
    reconcileErrors: new Counter({
      name: 'gw_reconcile_errors_total',
      help: 'Reconciles (or local-mode reloads) that failed and will be retried.',
      labelNames: ['reconciler'],
      registers,
    }),
    leader: new Gauge({
      name: 'gw_controller_leader',
      help: '1 while this replica holds the leader lease and writes status and proxy workloads; local mode has no election and is always 1.',
      registers,
    }),
  };
}

/** A named readiness check; all must pass for `/readyz` to answer 200. */
export interface ReadinessCheck {
  name: string;
  ready(): boolean;
}

export interface OpsServerOptions {
  host: string;
  healthPort: number;
  metricsPort: number;
  registry: Registry;
  checks: ReadinessCheck[];
  log: Logger;
  /** `warn`: a port that cannot be bound is logged and left unserved instead of failing the start. */
  onListenError?: 'throw' | 'warn';
}

export interface OpsServer {
  /** Bound ports; undefined when binding failed with onListenError `warn`. */
  readonly healthPort: number | undefined;
  readonly metricsPort: number | undefined;
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  // x-gw-pid: a run script checks that readiness comes from the process it started, not another on the port.
  res
    .writeHead(status, { 'content-type': 'application/json', 'x-gw-pid': String(process.pid) })
    .end(`${JSON.stringify(body)}\n`);
}

export async function startOpsServer(opts: OpsServerOptions): Promise<OpsServer> {
  const health = createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (path === '/healthz') return json(res, 200, { status: 'ok' });
    if (path === '/readyz') {
      const failing = opts.checks.filter((c) => !c.ready()).map((c) => c.name);
      if (failing.length === 0) return json(res, 200, { status: 'ready' });
      return json(res, 503, { error: 'not_ready', error_description: `waiting for: ${failing.join(', ')}` });
    }
    json(res, 404, { error: 'not_found', error_description: 'only /healthz and /readyz are served here' });
  });
  const metrics = createServer((req, res) => {
    if (req.url?.split('?')[0] !== '/metrics')
      return json(res, 404, { error: 'not_found', error_description: 'only /metrics is served here' });
    opts.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': opts.registry.contentType }).end(text),
      (err: unknown) => {
        opts.log.error({ err }, 'metrics collection failed');
        json(res, 500, { error: 'internal_error', error_description: 'metrics collection failed' });
      },
    );
  });
  const servers = [health, metrics];
  const bind = async (server: Server, port: number, what: string): Promise<number | undefined> => {
    try {
      return await listen(server, opts.host, port);
    } catch (err) {
      if (opts.onListenError !== 'warn') throw err;
      opts.log.warn({ port, err: (err as Error).message }, `${what} endpoint unavailable`);
      return undefined;
    }
  };
  try {
    const healthPort = await bind(health, opts.healthPort, 'health');
    const metricsPort = await bind(metrics, opts.metricsPort, 'metrics');
    opts.log.info({ healthPort, metricsPort, host: opts.host }, 'ops endpoints listening');
    return { healthPort, metricsPort, close: () => closeAll(servers) };
  } catch (err) {
    await closeAll(servers);
    throw err;
  }
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
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
