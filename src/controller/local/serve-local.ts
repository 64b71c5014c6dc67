// Local mode as a control plane: the folder's snapshots are served over xDS (no proxy authentication,
// as the design allows for local runs; plaintext unless --xds-mode asks for TLS, with the CA kept in
// --xds-ca-dir) with the same snapshot source as cluster mode, plus the ops endpoints. Proxy NACKs
// become `Programmed=False, reason RejectedByProxy` in the status files.
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { translateOptionsOf, type ControllerConfig } from '../config.js';
import { getObject } from '../../translate/objects/store.js';
import { splitObjectKey } from '../../translate/objects/types.js';
import type { BackoffOptions } from '../../xds/backoff.js';
import { fileCaStore } from '../../xds/ca.js';
import { createXdsServer, type XdsServer } from '../../xds/server.js';
import { createControllerMetrics, startOpsServer, type ControllerMetrics, type OpsServer } from '../ops-server.js';
import { createControllerSource, type ControllerSource } from '../snapshot-source.js';
import { NackReports } from '../nack-reports.js';
import { withRejections } from '../status-merge.js';
import { LocalController, type LocalControllerOptions, type ReloadSummary } from './local-controller.js';
import { renderStatusFile, writeStatusFile } from './status-files.js';
import { createConfigTracer, type ConfigTracer } from '../config-tracing.js';
import { startFleetUi, type ControllerUi, type RunningUi } from '../fleet.js';

/** Times (and with a tracer, traces) every reload (initial, and each one the folder watch triggers) and counts failures. */
class MeteredLocalController extends LocalController {
  constructor(
    opts: LocalControllerOptions,
    private readonly metrics: ControllerMetrics,
    private readonly tracer?: ConfigTracer,
  ) {
    super(opts);
  }

  override reload(): ReloadSummary {
    return this.tracer ? this.tracer.pass({ 'gw.mode': 'local' }, () => this.meteredReload()) : this.meteredReload();
  }

  private meteredReload(): ReloadSummary {
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
  /** The fleet UI's port, when it is on. */
  uiPort?: number;
  stop(): Promise<void>;
}

export interface LocalServerOptions {
  /** Address of the xDS and ops listeners; loopback unless GW_LISTEN_HOST says otherwise. */
  host?: string;
  debounceMs?: number;
  /** Re-sending what a proxy refused when nothing changed (tests set it long to show they need no timer). */
  xdsResendBackoff?: BackoffOptions;
  /** The fleet UI (`--admin-address`), started by the CLI's starter. */
  ui?: ControllerUi;
}

/** What the pieces of a local server share while it runs. */
interface LocalState {
  cfg: ControllerConfig;
  log: Logger;
  source: ControllerSource;
  nacks: NackReports;
  loaded: boolean;
  xdsOpen: boolean;
  /** `--otlp-traces-url`: translation passes, publishes and proxy ACKs as one trace per change. */
  tracer?: ConfigTracer;
}

export async function startLocalServer(
  cfg: ControllerConfig,
  log: Logger,
  opts: LocalServerOptions = {},
): Promise<LocalServer> {
  const host = opts.host ?? process.env.GW_LISTEN_HOST ?? '127.0.0.1';
  const metrics = createControllerMetrics();
  metrics.leader.set(1);
  const tracer = cfg.otlpTracesUrl ? createConfigTracer({ url: cfg.otlpTracesUrl }) : undefined;
  const st: LocalState = {
    cfg,
    log,
    source: tracer ? tracer.source(createControllerSource()) : createControllerSource(),
    nacks: new NackReports(),
    loaded: false,
    xdsOpen: false,
    ...(tracer ? { tracer } : {}),
  };
  const controller = createController(st, metrics, opts.debounceMs);
  const xds = await startXds(st, controller, host, metrics, opts.xdsResendBackoff);
  tracer?.connected((g) => xds.proxies().flatMap((p) => (p.gateway === g ? [p.pod] : [])));
  if (xds.caBundle && cfg.xdsCaDir) writeFileSync(join(cfg.xdsCaDir, 'ca.crt'), xds.caBundle);
  const ops = await startOps(st, host, metrics, xds);
  let ui: RunningUi;
  try {
    ui = await startFleetUi(opts.ui, 'local', st.source, () => xds.proxies(), log);
  } catch (err) {
    await xds.close();
    await ops.close();
    throw err;
  }
  st.xdsOpen = true;
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
      ...(ui ? { ui: ui.port } : {}),
    },
    'local mode: watching manifests, serving xds',
  );
  return {
    controller,
    source: st.source,
    xds,
    ops,
    metrics,
    ...(ui ? { uiPort: ui.port } : {}),
    stop: async () => {
      controller.stop();
      st.xdsOpen = false;
      await xds.close();
      await ops.close();
      await ui?.close();
      await tracer?.close();
    },
  };
}

/** Health and metrics; the xDS server is closed when they cannot start. */
async function startOps(st: LocalState, host: string, metrics: ControllerMetrics, xds: XdsServer): Promise<OpsServer> {
  const { cfg } = st;
  try {
    return await startOpsServer({
      host,
      healthPort: cfg.healthPort,
      metricsPort: cfg.metricsPort,
      registry: metrics.registry,
      log: st.log,
      checks: [
        { name: 'manifests loaded', ready: () => st.loaded },
        { name: 'xds serving', ready: () => st.xdsOpen },
      ],
    });
  } catch (err) {
    await xds.close();
    throw new Error(
      `cannot serve health/metrics on ${host}:${cfg.healthPort}/${cfg.metricsPort}: ${(err as Error).message}`,
    );
  }
}

/** The folder's controller; every reload publishes its snapshots and puts standing rejections back in. */
function createController(st: LocalState, metrics: ControllerMetrics, debounceMs?: number): LocalController {
  const served = new Set<string>();
  const { cfg } = st;
  const controller: LocalController = new MeteredLocalController(
    {
      manifests: cfg.manifests as string,
      ...(cfg.statusDir ? { statusDir: cfg.statusDir } : {}),
      translate: translateOptionsOf(cfg),
      builtinClass: { name: cfg.gatewayClassName, controllerName: cfg.controllerName },
      logger: st.log,
      ...(debounceMs !== undefined ? { debounceMs } : {}),
      onSnapshots: (snapshots) => {
        for (const gw of [...served])
          if (!snapshots.has(gw)) {
            st.source.publish(gw, undefined);
            served.delete(gw);
          }
        for (const [gw, snap] of snapshots) {
          st.source.publish(gw, snap);
          served.add(gw);
        }
        // A reload rewrites status files from the translator alone; rejections still standing go back in.
        for (const key of st.nacks.objects()) writeRejections(st, controller, key);
        st.loaded = true;
        st.source.setReady(true);
      },
    },
    metrics,
    st.tracer,
  );
  return controller;
}

/** The object's status file with the proxies' rejections merged in (`Programmed=False RejectedByProxy`). */
function writeRejections(st: LocalState, controller: LocalController, key: string): void {
  if (!st.cfg.statusDir) return;
  const k = splitObjectKey(key);
  const entry = k && getObject(controller.store, k.kind, k.key);
  const status = controller.statuses.get(key) as Record<string, unknown> | undefined;
  if (!entry || !status) return;
  const rejected = st.nacks.of(key);
  const elsewhere = st.nacks.elsewhere(key);
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  writeStatusFile(
    st.cfg.statusDir,
    key,
    renderStatusFile(
      entry,
      rejected.length || elsewhere.length ? withRejections(status, rejected, now, elsewhere) : status,
    ),
  );
}

async function startXds(
  st: LocalState,
  controller: LocalController,
  host: string,
  metrics: ControllerMetrics,
  resendBackoff?: BackoffOptions,
): Promise<XdsServer> {
  const { cfg } = st;
  try {
    return await createXdsServer({
      source: st.source,
      log: st.log,
      host,
      port: cfg.xdsPort,
      mode: cfg.xdsMode,
      registry: metrics.registry,
      ...(resendBackoff ? { resendBackoff } : {}),
      ...(cfg.xdsMode !== 'plaintext' && cfg.xdsCaDir ? { caStore: localCaStore(cfg.xdsCaDir) } : {}),
      onNack: (gateway, pod, errors) => {
        for (const key of st.nacks.report(gateway, pod, errors)) writeRejections(st, controller, key);
      },
      ...(st.tracer ? { onAck: st.tracer.acked.bind(st.tracer) } : {}),
      onResolved: (gateway, pod, names) => {
        for (const key of st.nacks.resolve(gateway, pod, names)) writeRejections(st, controller, key);
      },
    });
  } catch (err) {
    throw new Error(`cannot serve xDS on ${host}:${cfg.xdsPort}: ${(err as Error).message}`);
  }
}

/** `gw controller --manifests DIR` until SIGINT/SIGTERM (or `signal`). */
export async function serveLocal(
  cfg: ControllerConfig,
  log: Logger,
  signal?: AbortSignal,
  ui?: ControllerUi,
): Promise<number> {
  const dir = cfg.manifests as string;
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    log.error({ manifests: dir }, 'the --manifests folder does not exist or is not a folder');
    return 2;
  }
  let server: LocalServer;
  try {
    server = await startLocalServer(cfg, log, ui ? { ui } : {});
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
