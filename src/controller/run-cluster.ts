// Runs cluster mode from the parsed `gw controller` flags until SIGINT/SIGTERM: informers, work queues,
// leader election, status writer, deployer, and the xDS server every replica runs. An API server that
// is not reachable yet is waited for with readiness false; the process does not exit.
import type { Logger } from 'pino';
import { ownedNames, type ControllerConfig } from './config.js';
import type { ImageDefaults } from '../deployer/pod-template.js';
import type { DeployerOptions } from '../deployer/render.js';
import { startClusterController, type ClusterController } from './cluster.js';
import { createDeployer } from './deploy-apply.js';
import { createXdsServer, type XdsServer } from '../xds/server.js';
import {
  authorizeGatewayServiceAccount,
  retryingCaStore,
  secretCaStore,
  tokenReviewAuthenticator,
} from './xds-glue.js';
import { errText } from './workers.js';
import { createConfigTracer, type ConfigTracer } from './config-tracing.js';
import { createControllerMetrics, startOpsServer } from './ops-server.js';
import { startFleetUi, type ControllerUi, type RunningUi } from './fleet.js';

export async function runClusterController(
  cfg: ControllerConfig,
  logger: Logger,
  signal?: AbortSignal,
  ui?: ControllerUi,
): Promise<number> {
  const namespace = cfg.leaderElectionNamespace ?? process.env.POD_NAMESPACE;
  const leaderElect = cfg.leaderElect ?? true;
  if (leaderElect && !namespace) {
    logger.error(
      'leader election needs a namespace: pass --leader-election-namespace NS (or set POD_NAMESPACE), or --no-leader-elect',
    );
    return 2;
  }
  const stopping = stopSignal(signal);
  const metrics = createControllerMetrics();
  const health = { synced: false, xdsOpen: false };
  // First, so that while the API server is unreachable the pod is alive and reports not ready.
  const ops = await startOpsServer({
    host: listenHost(),
    healthPort: cfg.healthPort,
    metricsPort: cfg.metricsPort,
    registry: metrics.registry,
    log: logger,
    onListenError: 'warn',
    checks: [
      { name: 'caches synced', ready: () => health.synced },
      { name: 'xds serving', ready: () => health.xdsOpen },
    ],
  });
  const started = await startParts(cfg, logger, namespace, leaderElect, metrics, stopping.signal);
  if (!started) {
    await ops.close();
    return stopping.signal.aborted ? 0 : 2;
  }
  const { controller, xds } = started;
  let fleet: RunningUi;
  try {
    fleet = await startFleetUi(ui, 'cluster', controller.source, () => xds.proxies(), logger);
  } catch (err) {
    logger.error({ err: errText(err) }, 'cannot start the fleet UI');
    await xds.close();
    await controller.stop();
    await ops.close();
    return 2;
  }
  health.xdsOpen = true;
  void controller.ready().then(() => (health.synced = true));
  logger.info({ kubeconfig: cfg.kubeconfig ?? 'in-cluster', leaderElect, namespace }, 'cluster mode started');
  await stopping.stopped;
  logger.info('stopping: releasing the lease and draining the work queues');
  health.xdsOpen = false;
  await xds.close();
  await controller.stop();
  await started.tracer?.close();
  await ops.close();
  await fleet?.close();
  return 0;
}

/** All interfaces in a pod; tests and local runs set GW_LISTEN_HOST=127.0.0.1. */
function listenHost(): string {
  return process.env.GW_LISTEN_HOST ?? '0.0.0.0';
}

/** Resolves on SIGINT, SIGTERM or the caller's abort; `signal` aborts then too (ends waits for the API server). */
function stopSignal(outer?: AbortSignal): { stopped: Promise<void>; signal: AbortSignal } {
  const ac = new AbortController();
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      ac.abort();
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    outer?.addEventListener('abort', stop, { once: true });
    if (outer?.aborted) stop();
  });
  return { stopped, signal: ac.signal };
}

/** The controller and its xDS server; undefined (logged) when either cannot start, or on stop while waiting. */
async function startParts(
  cfg: ControllerConfig,
  logger: Logger,
  namespace: string | undefined,
  leaderElect: boolean,
  metrics: ReturnType<typeof createControllerMetrics>,
  stopping: AbortSignal,
): Promise<{ controller: ClusterController; xds: XdsServer; tracer?: ConfigTracer } | undefined> {
  const serviceName = cfg.serviceName ?? 'gw';
  const serviceNamespace = cfg.serviceNamespace ?? namespace ?? 'default';
  const owned = ownedNames(cfg.releaseName);
  // Known once the xDS server has its CA; the deployer reads it on each run.
  let caBundle: string | undefined;
  let controller: ClusterController;
  const tracer = cfg.otlpTracesUrl ? createConfigTracer({ url: cfg.otlpTracesUrl }) : undefined;
  try {
    controller = await startClusterController({
      metrics,
      ...(tracer ? { tracer } : {}),
      ...(cfg.kubeconfig ? { kubeconfig: cfg.kubeconfig } : {}),
      controllerName: cfg.controllerName,
      discoveryNamespaceSelectors: cfg.discoveryNamespaceSelectors,
      gatewayNamespaces: cfg.gatewayNamespaces,
      enableModels: cfg.enableModels,
      enableInferenceExtension: cfg.enableInferenceExtension,
      classParametersRefs: cfg.gatewayClassParametersRefs,
      ...(cfg.istio.autoEnabledClass ? { istioAutoEnabledClass: cfg.istio.autoEnabledClass } : {}),
      leaderElect,
      leaderElectionNamespace: namespace ?? '',
      leaseName: owned.lease,
      log: logger,
      deploy: createDeployer({
        render: deployerOptionsOf(cfg, namespace),
        classParametersRefs: cfg.gatewayClassParametersRefs,
        ...(cfg.xdsMode === 'plaintext' ? {} : { caBundle: () => caBundle }),
        now: () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      }),
      ...timingsFromEnv(),
    });
  } catch (err) {
    logger.error({ kubeconfig: cfg.kubeconfig ?? 'in-cluster', err: errText(err) }, 'cannot start the controller');
    await tracer?.close();
    return undefined;
  }
  try {
    const caStore = secretCaStore(controller.client, namespace ?? 'default', owned.xdsCa);
    const xds = await createXdsServer({
      source: controller.source,
      log: logger,
      port: cfg.xdsPort,
      host: listenHost(),
      mode: cfg.xdsMode,
      // The CA lives in the API server: wait for it (readiness false) rather than exit.
      ...(cfg.xdsMode === 'plaintext' ? {} : { caStore: retryingCaStore(caStore, logger, stopping) }),
      tlsNames: [`${serviceName}.${serviceNamespace}.svc`, `${serviceName}.${serviceNamespace}.svc.cluster.local`],
      authenticate: tokenReviewAuthenticator(controller.client),
      authorize: authorizeGatewayServiceAccount,
      onNack: (gateway, pod, errors) => controller.reportNack(gateway, pod, errors),
      onResolved: (gateway, pod, names) => controller.resolveNack(gateway, pod, names),
      ...(tracer ? { onAck: tracer.acked.bind(tracer) } : {}),
      registry: metrics.registry,
    });
    tracer?.connected((g) => xds.proxies().flatMap((p) => (p.gateway === g ? [p.pod] : [])));
    caBundle = xds.caBundle;
    logger.info({ port: xds.port, mode: cfg.xdsMode }, 'xds server listening');
    controller.campaign();
    return { controller, xds, ...(tracer ? { tracer } : {}) };
  } catch (err) {
    if (!stopping.aborted) logger.error({ port: cfg.xdsPort, err: errText(err) }, 'cannot start the xds server');
    await controller.stop();
    await tracer?.close();
    return undefined;
  }
}

/**
 * Lease timings from GW_LEASE_DURATION_MS, GW_RENEW_DEADLINE_MS, GW_RETRY_PERIOD_MS: the client-go
 * defaults (15 s / 10 s / 2 s) suit clusters; tests shorten them.
 */
function timingsFromEnv(): { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number } {
  const n = (v: string | undefined) => (v && Number.isFinite(Number(v)) && Number(v) > 0 ? Number(v) : undefined);
  const out: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number } = {};
  const l = n(process.env.GW_LEASE_DURATION_MS),
    d = n(process.env.GW_RENEW_DEADLINE_MS),
    r = n(process.env.GW_RETRY_PERIOD_MS);
  if (l) out.leaseDurationMs = l;
  if (d) out.renewDeadlineMs = d;
  if (r) out.retryPeriodMs = r;
  return out;
}

export const DEFAULT_PROXY_IMAGE = 'ghcr.io/gw-dev/proxy:latest';

/** What the deployer renders every Gateway with, from the controller's flags (the chart's values). */
export function deployerOptionsOf(cfg: ControllerConfig, namespace: string | undefined): DeployerOptions {
  return {
    controllerService: { name: cfg.serviceName ?? 'gw', namespace: cfg.serviceNamespace ?? namespace ?? 'default' },
    xdsCaConfigMap: ownedNames(cfg.releaseName).xdsCa,
    xdsPort: cfg.xdsPort,
    xdsMode: cfg.xdsMode,
    proxyImage: parseImage(cfg.proxyImage ?? DEFAULT_PROXY_IMAGE),
    istio: cfg.istio,
  };
}

/** `registry/repo/name:tag` or `…@sha256:…` → the deployer's image defaults (a digest stays in the tag slot's place). */
export function parseImage(ref: string): ImageDefaults {
  const at = ref.indexOf('@');
  if (at >= 0) return { repository: ref };
  const slash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  return colon > slash ? { repository: ref.slice(0, colon), tag: ref.slice(colon + 1) } : { repository: ref };
}
