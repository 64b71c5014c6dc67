// Runs cluster mode from the parsed `gw controller` flags until SIGINT/SIGTERM: informers, work queue,
// leader election, status writer, deployer, and the xDS server every replica runs.
import type { Logger } from 'pino';
import type { ControllerConfig } from './config.js';
import type { ImageDefaults } from '../deployer/pod-template.js';
import { startClusterController } from './cluster.js';
import { createDeployer } from './deploy-apply.js';
import { createXdsServer, type XdsServer } from '../xds/server.js';
import { authorizeGatewayServiceAccount, secretCaStore, tokenReviewAuthenticator } from './xds-glue.js';
import { errText } from './workers.js';
import { createControllerMetrics, startOpsServer } from './ops-server.js';

export async function runClusterController(
  cfg: ControllerConfig,
  logger: Logger,
  signal?: AbortSignal,
): Promise<number> {
  const namespace = cfg.leaderElectionNamespace ?? process.env.POD_NAMESPACE;
  const leaderElect = cfg.leaderElect ?? true;
  if (leaderElect && !namespace) {
    logger.error(
      'leader election needs a namespace: pass --leader-election-namespace NS (or set POD_NAMESPACE), or --no-leader-elect',
    );
    return 2;
  }
  const release = cfg.releaseName ?? 'gw';
  const serviceName = cfg.serviceName ?? release;
  const caName = `${release}-xds-ca`;
  // All interfaces in a pod; tests and local runs set GW_LISTEN_HOST=127.0.0.1.
  const listenHost = process.env.GW_LISTEN_HOST ?? '0.0.0.0';
  // Known once the xDS server has its CA; the deployer reads it on each run.
  let caBundle: string | undefined;
  const metrics = createControllerMetrics();
  let controller;
  try {
    controller = await startClusterController({
      metrics,
      ...(cfg.kubeconfig ? { kubeconfig: cfg.kubeconfig } : {}),
      controllerName: cfg.controllerName,
      discoveryNamespaceSelectors: cfg.discoveryNamespaceSelectors,
      gatewayNamespaces: cfg.gatewayNamespaces,
      enableModels: cfg.enableModels,
      leaderElect,
      leaderElectionNamespace: namespace ?? '',
      leaseName: `${release}-controller`,
      log: logger,
      deploy: createDeployer({
        render: {
          controllerService: { name: serviceName, namespace: namespace ?? 'default' },
          xdsCaConfigMap: caName,
          xdsPort: cfg.xdsPort,
          xdsMode: cfg.xdsMode,
          proxyImage: parseImage(cfg.proxyImage ?? DEFAULT_PROXY_IMAGE),
        },
        classParametersRefs: cfg.gatewayClassParametersRefs,
        ...(cfg.xdsMode === 'plaintext' ? {} : { caBundle: () => caBundle }),
        now: () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      }),
      ...timingsFromEnv(),
    });
  } catch (err) {
    logger.error({ kubeconfig: cfg.kubeconfig ?? 'in-cluster', err: errText(err) }, 'cannot start the controller');
    return 2;
  }
  let xds: XdsServer | undefined;
  const { registry } = metrics;
  try {
    xds = await createXdsServer({
      source: controller.source,
      log: logger,
      port: cfg.xdsPort,
      host: listenHost,
      mode: cfg.xdsMode,
      ...(cfg.xdsMode === 'plaintext'
        ? {}
        : { caStore: secretCaStore(controller.client, namespace ?? 'default', caName) }),
      tlsNames: [
        `${serviceName}.${namespace ?? 'default'}.svc`,
        `${serviceName}.${namespace ?? 'default'}.svc.cluster.local`,
      ],
      authenticate: tokenReviewAuthenticator(controller.client),
      authorize: authorizeGatewayServiceAccount,
      onNack: (gateway, pod, errors) => controller.reportNack(gateway, pod, errors),
      onResolved: (gateway, pod, names) => controller.resolveNack(gateway, pod, names),
      registry,
    });
    caBundle = xds.caBundle;
    logger.info({ port: xds.port, mode: cfg.xdsMode }, 'xds server listening');
    controller.campaign();
  } catch (err) {
    logger.error({ port: cfg.xdsPort, err: errText(err) }, 'cannot start the xds server');
    await controller.stop();
    return 2;
  }
  let ready = false;
  void controller.ready().then(() => (ready = true));
  let xdsOpen = true;
  const ops = await startOpsServer({
    host: listenHost,
    healthPort: cfg.healthPort,
    metricsPort: cfg.metricsPort,
    registry,
    log: logger,
    onListenError: 'warn',
    checks: [
      { name: 'caches synced', ready: () => ready },
      { name: 'xds serving', ready: () => xdsOpen },
    ],
  });
  logger.info({ kubeconfig: cfg.kubeconfig ?? 'in-cluster', leaderElect, namespace }, 'cluster mode started');
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    signal?.addEventListener('abort', stop, { once: true });
  });
  logger.info('stopping: releasing the lease and draining the work queue');
  xdsOpen = false;
  await xds.close();
  await controller.stop();
  await ops.close();
  return 0;
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

/** `registry/repo/name:tag` or `…@sha256:…` → the deployer's image defaults (a digest stays in the tag slot's place). */
export function parseImage(ref: string): ImageDefaults {
  const at = ref.indexOf('@');
  if (at >= 0) return { repository: ref };
  const slash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  return colon > slash ? { repository: ref.slice(0, colon), tag: ref.slice(colon + 1) } : { repository: ref };
}
