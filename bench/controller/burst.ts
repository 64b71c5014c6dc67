// The burst half of the control-plane benchmark: an in-process cluster-mode controller (so the event
// loop it runs on can be watched) against the e2e API server; N objects are created at once, then
// deleted at once, and translation passes, time to converge, the longest event-loop stall, the slowest
// /healthz answer and RSS are recorded for each.
import { get } from 'node:http';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { startClusterController, type ClusterController } from '../../src/controller/cluster.js';
import { KubeClient, loadKubeConfig } from '../../src/controller/kube-client.js';
import { createControllerMetrics, startOpsServer } from '../../src/controller/ops-server.js';
import {
  burstPolicy,
  burstRoute,
  createBurstFixture,
  snapshotsHold,
  snapshotText,
} from '../../test/e2e/controller/support/burst-objects.js';

export interface BurstFigures {
  what: string;
  objects: number;
  passes: number;
  /** Gateways translated, summed over the passes. */
  gatewayTranslations: number;
  /** From the first write to the snapshot holding (or no longer holding) every object. */
  convergeMs: number;
  /** From the last write to convergence. */
  afterLastWriteMs: number;
  maxStallMs: number;
  maxHealthzMs: number;
  rssMb: number;
}

const GWAPI = '/apis/gateway.networking.k8s.io/v1';
const GW = '/apis/gw.dev/v1alpha1';
const CONTROLLER = 'gw.dev/bench-burst';

export async function runBurst(kubeconfig: string, objects: number, gateways = 4): Promise<BurstFigures[]> {
  const client = new KubeClient(loadKubeConfig(kubeconfig));
  const ns = `burst-${Date.now().toString(36)}`;
  await createBurstFixture(client, ns, CONTROLLER, gateways);
  const metrics = createControllerMetrics();
  const ctl = await startClusterController({
    kubeconfig,
    controllerName: CONTROLLER,
    leaderElect: false,
    leaderElectionNamespace: ns,
    log: pino({ level: 'silent' }),
    metrics,
  });
  const ops = await startOpsServer({
    host: '127.0.0.1',
    healthPort: 0,
    metricsPort: 0,
    registry: metrics.registry,
    log: pino({ level: 'silent' }),
    checks: [],
  });
  try {
    await ctl.ready();
    const routes = Math.ceil(objects / 2);
    const policies = objects - routes;
    const gatewayKeys = Array.from({ length: gateways }, (_, g) => `${ns}/gw-${g}`);
    const creates = [
      ...Array.from(
        { length: routes },
        (_, i) => () =>
          client.request('POST', `${GWAPI}/namespaces/${ns}/httproutes`, { body: burstRoute(i, gateways) }),
      ),
      ...Array.from(
        { length: policies },
        (_, i) => () => client.request('POST', `${GW}/namespaces/${ns}/gwpolicies`, { body: burstPolicy(i) }),
      ),
    ];
    const created = await measure('create', ctl, ops.healthPort!, creates, () =>
      snapshotsHold(ctl, gatewayKeys, ns, routes, policies),
    );
    const deletes = [
      ...Array.from(
        { length: routes },
        (_, i) => () => client.request('DELETE', `${GWAPI}/namespaces/${ns}/httproutes/r-${i}`),
      ),
      ...Array.from(
        { length: policies },
        (_, i) => () => client.request('DELETE', `${GW}/namespaces/${ns}/gwpolicies/p-${i}`),
      ),
    ];
    const deleted = await measure('delete', ctl, ops.healthPort!, deletes, () => empty(ctl, gatewayKeys));
    return [
      { ...created, objects },
      { ...deleted, objects },
    ];
  } finally {
    await ops.close();
    await ctl.stop();
    await client.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
    await client.request('DELETE', `${GWAPI}/gatewayclasses/${ns}`).catch(() => undefined);
    client.close();
  }
}

function empty(ctl: ClusterController, gateways: string[]): boolean {
  return gateways.every((g) => !/\/r-\d+"/.test(snapshotText(ctl, g)));
}

async function measure(
  what: string,
  ctl: ClusterController,
  healthPort: number,
  writes: (() => Promise<unknown>)[],
  converged: () => boolean,
): Promise<Omit<BurstFigures, 'objects'>> {
  const before = ctl.translationStats();
  const stall = monitorEventLoopDelay({ resolution: 10 });
  stall.enable();
  const probe = healthProbe(healthPort);
  const start = performance.now();
  // As `kubectl apply -f dir/` with many objects would: up to 32 requests in flight.
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < writes.length) await writes[next++]!();
    }),
  );
  const lastWrite = performance.now();
  const deadline = lastWrite + 60_000;
  while (!converged()) {
    if (performance.now() > deadline) throw new Error(`${what}: not converged within 60 s of the last write`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const done = performance.now();
  // Passes still running after convergence (e.g. status-only) count too.
  await new Promise((r) => setTimeout(r, 2_500));
  stall.disable();
  const maxHealthzMs = await probe.stop();
  return {
    what,
    passes: ctl.translationStats().passes - before.passes,
    gatewayTranslations: ctl.translationStats().gatewayTranslations - before.gatewayTranslations,
    convergeMs: Math.round(done - start),
    afterLastWriteMs: Math.round(done - lastWrite),
    maxStallMs: Math.round(stall.max / 1e6),
    maxHealthzMs: Math.round(maxHealthzMs),
    rssMb: Math.round(process.memoryUsage().rss / 2 ** 20),
  };
}

/** Asks /healthz every 25 ms; the slowest answer is what a kubelet probe would have seen. */
function healthProbe(port: number): { stop(): Promise<number> } {
  let max = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      await new Promise<void>((resolve, reject) =>
        get({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
          res.resume();
          res.on('end', resolve);
        }).on('error', reject),
      );
      max = Math.max(max, performance.now() - t);
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return max;
    },
  };
}
