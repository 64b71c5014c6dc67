// The burst half of the control-plane benchmark: an in-process cluster-mode controller (so the event
// loop it runs on can be watched) against the e2e API server; N objects are created at once, then
// deleted at once (by a separate writer process, bench/controller/writer.ts, which also plays a proxy
// of the first gateway over xDS), and translation passes, time to converge, the longest event-loop stall, the slowest
// /healthz answer and RSS are recorded for each.
import { fork } from 'node:child_process';
import { get } from 'node:http';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { startClusterController, type ClusterController } from '../../src/controller/cluster.js';
import { KubeClient, loadKubeConfig } from '../../src/controller/kube-client.js';
import { createControllerMetrics, startOpsServer } from '../../src/controller/ops-server.js';
import { createBurstFixture, snapshotsHold, snapshotText } from '../../test/e2e/controller/support/burst-objects.js';
import type { ProxyUpdate, WriterJob } from './writer.js';
import { createXdsServer } from '../../src/xds/server.js';

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
  /** From the last write to the first gateway's proxy holding it over xDS (0: before the last write). */
  proxyAfterLastWriteMs: number | undefined;
  maxStallMs: number;
  /** CPU the process used during that longest stall: below the stall, the rest was waiting for a core. */
  stallCpuMs: number;
  maxHealthzMs: number;
  rssMb: number;
}

const GWAPI = '/apis/gateway.networking.k8s.io/v1';
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
    // BENCH_LOG=file keeps the controller's debug log (passes with their change counts and times).
    log: process.env.BENCH_LOG
      ? pino({ level: 'debug' }, pino.destination(process.env.BENCH_LOG))
      : pino({ level: 'silent' }),
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
  let closeXds = async () => {};
  try {
    await ctl.ready();
    const routes = Math.ceil(objects / 2);
    const policies = objects - routes;
    const gatewayKeys = Array.from({ length: gateways }, (_, g) => `${ns}/gw-${g}`);
    const xds = await createXdsServer({
      source: ctl.source,
      log: pino({ level: 'silent' }),
      port: 0,
      host: '127.0.0.1',
      mode: 'plaintext',
    });
    closeXds = () => xds.close();
    const writer = await startWriter(xds.port, gatewayKeys[0]!);
    const job = { kubeconfig, ns, gateways, routes, policies };
    const proxy = { gateway: gatewayKeys[0]!, updates: writer.updates };
    const created = await measure(
      'create',
      ctl,
      ops.healthPort!,
      () => writer.run({ ...job, op: 'create' }),
      () => snapshotsHold(ctl, gatewayKeys, ns, routes, policies),
      proxy,
    );
    const deleted = await measure(
      'delete',
      ctl,
      ops.healthPort!,
      () => writer.run({ ...job, op: 'delete' }),
      () => empty(ctl, gatewayKeys),
      proxy,
    );
    writer.stop();
    return [
      { ...created, objects },
      { ...deleted, objects },
    ];
  } finally {
    await closeXds();
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
  write: () => Promise<void>,
  converged: () => boolean,
  proxy: { gateway: string; updates: ProxyUpdate['proxy'][] },
): Promise<Omit<BurstFigures, 'objects'>> {
  const before = ctl.translationStats();
  const stall = monitorEventLoopDelay({ resolution: 10 });
  stall.enable();
  const cpuGap = cpuDuringLongestGap();
  const probe = healthProbe(healthPort);
  const start = performance.now();
  const startEpoch = Date.now();
  await write();
  const lastWrite = performance.now();
  const lastWriteEpoch = Date.now();
  const deadline = lastWrite + 60_000;
  while (!converged()) {
    if (performance.now() > deadline) throw new Error(`${what}: not converged within 60 s of the last write`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const done = performance.now();
  const expected = ctl.source.get(proxy.gateway)?.size ?? 0;
  // Passes still running after convergence (e.g. status-only) count too.
  await new Promise((r) => setTimeout(r, 2_500));
  stall.disable();
  const gap = cpuGap.stop();
  const maxHealthzMs = await probe.stop();
  // The proxy's clock is this machine's: the first update after which it held the converged snapshot.
  const held = proxy.updates.find((u) => u.at >= startEpoch && u.resources === expected);
  return {
    proxyAfterLastWriteMs: held ? Math.max(0, held.at - lastWriteEpoch) : undefined,
    what,
    passes: ctl.translationStats().passes - before.passes,
    gatewayTranslations: ctl.translationStats().gatewayTranslations - before.gatewayTranslations,
    convergeMs: Math.round(done - start),
    afterLastWriteMs: Math.round(done - lastWrite),
    maxStallMs: Math.round(Math.max(stall.max / 1e6, gap.wallMs)),
    stallCpuMs: Math.round(gap.cpuMs),
    maxHealthzMs: Math.round(maxHealthzMs),
    rssMb: Math.round(process.memoryUsage().rss / 2 ** 20),
  };
}

/**
 * The longest gap between 10 ms timer ticks and the CPU time this process used in it: on a shared
 * machine a stall is partly the process waiting for a core, which no change to the controller removes.
 */
function cpuDuringLongestGap(): { stop(): { wallMs: number; cpuMs: number } } {
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let worst = { wallMs: 0, cpuMs: 0 };
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    const wallMs = now - last - 10;
    if (wallMs > worst.wallMs) worst = { wallMs, cpuMs: Math.min(wallMs, (cpu.user + cpu.system) / 1000) };
    last = now;
    lastCpu = process.cpuUsage();
  }, 10);
  return {
    stop() {
      clearInterval(timer);
      return worst;
    },
  };
}

interface Writer {
  run(job: WriterJob): Promise<void>;
  /** What the writer's proxy of the first gateway received, in order. */
  updates: ProxyUpdate['proxy'][];
  stop(): void;
}

/** The writer process, started before the measurement so its start-up is not measured. */
async function startWriter(xdsPort: number, gateway: string): Promise<Writer> {
  const child = fork(fileURLToPath(new URL('./writer.ts', import.meta.url)), [String(xdsPort), gateway], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const updates: ProxyUpdate['proxy'][] = [];
  let waiter: ((m: { ok?: boolean; error?: string }) => void) | undefined;
  child.on('message', (m: Partial<ProxyUpdate> & { ok?: boolean; error?: string }) => {
    if (m.proxy) updates.push(m.proxy);
    else waiter?.(m);
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`burst writer exited with ${code}`))),
  );
  exited.catch(() => undefined);
  const next = () => Promise.race([new Promise<{ ok?: boolean; error?: string }>((r) => (waiter = r)), exited]);
  await next();
  return {
    updates,
    async run(job) {
      const answer = next();
      child.send(job);
      const m = await answer;
      if (!m.ok) throw new Error(`burst writer: ${m.error}`);
    },
    stop: () => child.kill(),
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
