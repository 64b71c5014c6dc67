// Local mode as a control plane: the folder's snapshots are served over xDS (no proxy authentication,
// as the design allows for local runs; plaintext unless --xds-mode asks for TLS, with the CA kept in
// --xds-ca-dir) with the same snapshot source as cluster mode, plus the ops endpoints. Proxy NACKs become `Programmed=False, reason RejectedByProxy` in the status files.
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { translateOptionsOf, type ControllerConfig } from '../config.js';
import { getObject } from '../../translate/objects/store.js';
import { splitObjectKey } from '../../translate/objects/types.js';
import { fileCaStore } from '../../xds/ca.js';
import { createXdsServer, type XdsServer } from '../../xds/server.js';
import { createControllerMetrics, startOpsServer, type ControllerMetrics, type OpsServer } from '../ops-server.js';
import { createControllerSource, type ControllerSource } from '../snapshot-source.js';
import { withRejections, type Rejection } from '../status-merge.js';
import { objectOfResource } from '../xds-glue.js';
import { LocalController, type LocalControllerOptions, type ReloadSummary } from './local-controller.js';
import { renderStatusFile, writeStatusFile } from './status-files.js';

/** Times every reload (initial, and each one the folder watch triggers) and counts failures. */
class MeteredLocalController extends LocalController {
  constructor(
    opts: LocalControllerOptions,
    private readonly metrics: ControllerMetrics,
  ) {
    super(opts);
  }

  override reload(): ReloadSummary {
    const start = performance.now();
    try {
      return super.reload();
    } catch (err) {
      this.metrics.reconcileErrors.inc({ reconciler: 'local-reload' });
      throw err;
    } finally {
      this.metrics.translateDuration.observe({ mode: 'local' }, (performance.now() - start) / 1000);
    }
  }
}

export interface LocalServer {
  controller: LocalController;
  source: ControllerSource;
  xds: XdsServer;
  ops: OpsServer;
  metrics: ControllerMetrics;
  stop(): Promise<void>;
}

export interface LocalServerOptions {
  /** Address of the xDS and ops listeners; loopback unless GW_LISTEN_HOST says otherwise. */
  host?: string;
  debounceMs?: number;
}

export async function startLocalServer(
  cfg: ControllerConfig,
  log: Logger,
  opts: LocalServerOptions = {},
): Promise<LocalServer> {
  const host = opts.host ?? process.env.GW_LISTEN_HOST ?? '127.0.0.1';
  const metrics = createControllerMetrics();
  const source = createControllerSource();
  /** Object key → `gateway|pod|resource` → the proxy's message. */
  const nacks = new Map<string, Map<string, Rejection>>();
  let loaded = false;
  let xdsOpen = false;
  const gatewaysServed = new Set<string>();
  const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

  const controller: LocalController = new MeteredLocalController(
    {
      manifests: cfg.manifests as string,
      ...(cfg.statusDir ? { statusDir: cfg.statusDir } : {}),
      translate: translateOptionsOf(cfg),
      builtinClass: { name: cfg.gatewayClassName, controllerName: cfg.controllerName },
      logger: log,
      ...(opts.debounceMs !== undefined ? { debounceMs: opts.debounceMs } : {}),
      onSnapshots: (snapshots) => {
        for (const gw of [...gatewaysServed])
          if (!snapshots.has(gw)) {
            source.publish(gw, undefined);
            gatewaysServed.delete(gw);
          }
        for (const [gw, snap] of snapshots) {
          source.publish(gw, snap);
          gatewaysServed.add(gw);
        }
        // A reload rewrites status files from the translator alone; rejections still standing go back in.
        for (const key of nacks.keys()) writeRejections(key);
        loaded = true;
        source.setReady(true);
      },
    },
    metrics,
  );

  function writeRejections(key: string): void {
    if (!cfg.statusDir) return;
    const k = splitObjectKey(key);
    const entry = k && getObject(controller.store, k.kind, k.key);
    const status = controller.statuses.get(key) as Record<string, unknown> | undefined;
    if (!entry || !status) return;
    const rejected = [...(nacks.get(key)?.values() ?? [])];
    writeStatusFile(
      cfg.statusDir,
      key,
      renderStatusFile(entry, rejected.length ? withRejections(status, rejected, now()) : status),
    );
  }

  let xds: XdsServer;
  try {
    xds = await createXdsServer({
      source,
      log,
      host,
      port: cfg.xdsPort,
      mode: cfg.xdsMode,
      registry: metrics.registry,
      ...(cfg.xdsMode !== 'plaintext' && cfg.xdsCaDir ? { caStore: localCaStore(cfg.xdsCaDir) } : {}),
      onNack: (gateway, pod, errors) => {
        for (const e of errors) {
          const key = objectOfResource(e.name, gateway);
          let m = nacks.get(key);
          if (!m) nacks.set(key, (m = new Map()));
          m.set(`${gateway}|${pod}|${e.name}`, { gateway, message: `proxy ${pod} rejected ${e.name}: ${e.message}` });
          writeRejections(key);
        }
      },
      onResolved: (gateway, pod, names) => {
        for (const name of names) {
          const key = objectOfResource(name, gateway);
          const m = nacks.get(key);
          if (!m?.delete(`${gateway}|${pod}|${name}`)) continue;
          if (m.size === 0) nacks.delete(key);
          writeRejections(key);
        }
      },
    });
  } catch (err) {
    throw new Error(`cannot serve xDS on ${host}:${cfg.xdsPort}: ${(err as Error).message}`);
  }
  if (xds.caBundle && cfg.xdsCaDir) writeFileSync(join(cfg.xdsCaDir, 'ca.crt'), xds.caBundle);
  let ops: OpsServer;
  try {
    ops = await startOpsServer({
      host,
      healthPort: cfg.healthPort,
      metricsPort: cfg.metricsPort,
      registry: metrics.registry,
      log,
      checks: [
        { name: 'manifests loaded', ready: () => loaded },
        { name: 'xds serving', ready: () => xdsOpen },
      ],
    });
  } catch (err) {
    await xds.close();
    throw new Error(
      `cannot serve health/metrics on ${host}:${cfg.healthPort}/${cfg.metricsPort}: ${(err as Error).message}`,
    );
  }
  xdsOpen = true;
  controller.start();
  log.info(
    {
      manifests: cfg.manifests,
      statusDir: cfg.statusDir,
      xds: `${host}:${xds.port}`,
      xdsMode: cfg.xdsMode,
      ...(xds.caBundle && cfg.xdsCaDir ? { xdsCa: join(cfg.xdsCaDir, 'ca.crt') } : {}),
      health: ops.healthPort,
      metrics: ops.metricsPort,
    },
    'local mode: watching manifests, serving xds',
  );
  return {
    controller,
    source,
    xds,
    ops,
    metrics,
    stop: async () => {
      controller.stop();
      xdsOpen = false;
      await xds.close();
      await ops.close();
    },
  };
}

/** `gw controller --manifests DIR` until SIGINT/SIGTERM (or `signal`). */
export async function serveLocal(cfg: ControllerConfig, log: Logger, signal?: AbortSignal): Promise<number> {
  const dir = cfg.manifests as string;
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    log.error({ manifests: dir }, 'the --manifests folder does not exist or is not a folder');
    return 2;
  }
  let server: LocalServer;
  try {
    server = await startLocalServer(cfg, log);
  } catch (err) {
    log.error({ manifests: cfg.manifests, err: (err as Error).message }, 'local mode cannot start');
    return 2;
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.stop();
  log.info('local mode stopped');
  return 0;
}

/** The CA survives restarts in DIR/ca.json, so proxies holding DIR/ca.crt keep trusting the controller. */
function localCaStore(dir: string): ReturnType<typeof fileCaStore> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return fileCaStore(join(dir, 'ca.json'));
}
