// The failover half of the control-plane benchmark: two `gw controller` processes share a Lease; the
// holder is stopped with SIGTERM (it releases the lease) and, after a third replica joins, the next
// holder with SIGKILL (the lease must expire). Each time is from the signal to the other replica
// holding the lease.
import { performance } from 'node:perf_hooks';
import { KubeClient, loadKubeConfig } from '../../src/controller/kube-client.js';
import { startController, type ControllerProcess } from '../../test/e2e/controller/support/controller-process.js';

export interface FailoverFigures {
  timings: string;
  leaseDurationMs: number;
  sigtermMs: number;
  sigkillMs: number;
}

export interface LeaseTimings {
  durationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** client-go's defaults, which the chart leaves in place. */
export const CHART_DEFAULT_LEASE: LeaseTimings = { durationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

export async function runFailover(kubeconfig: string, name: string, lease?: LeaseTimings): Promise<FailoverFigures> {
  const client = new KubeClient(loadKubeConfig(kubeconfig));
  const ns = `failover-${name}-${Date.now().toString(36)}`;
  await client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
  });
  const ctls: ControllerProcess[] = [];
  const start = (id: string) => {
    const c = startController({
      kubeconfig,
      identity: `${ns}-${id}`,
      controllerName: `gw.dev/bench-${ns}`,
      leaderElectionNamespace: ns,
      ...(lease ? { lease } : {}),
    });
    ctls.push(c);
    return c;
  };
  const holder = async (): Promise<string | undefined> => {
    try {
      const l = await client.request<{ spec?: { holderIdentity?: string } }>(
        'GET',
        `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/gw-controller`,
      );
      return l.spec?.holderIdentity || undefined;
    } catch {
      return undefined;
    }
  };
  const waitHolder = async (among: ControllerProcess[], timeoutMs: number): Promise<ControllerProcess> => {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const id = await holder();
      const c = among.find((x) => x.identity === id);
      if (c) return c;
      if (performance.now() > deadline)
        throw new Error(`${name}: no lease holder among replicas within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  /** Stops the holder with `signal`; resolves with the time until another replica holds the lease. */
  const handOver = async (signal: 'SIGTERM' | 'SIGKILL'): Promise<number> => {
    const leader = await waitHolder(ctls, 120_000);
    const others = ctls.filter((c) => c !== leader && !c.exited());
    const t0 = performance.now();
    const stopped = leader.stop(signal);
    await waitHolder(others, 120_000);
    const ms = performance.now() - t0;
    await stopped;
    return Math.round(ms);
  };
  try {
    await Promise.all([start('a'), start('b')].map((c) => c.ready()));
    const sigtermMs = await handOver('SIGTERM');
    await start('c').ready();
    const sigkillMs = await handOver('SIGKILL');
    return {
      timings: name,
      leaseDurationMs: lease?.durationMs ?? CHART_DEFAULT_LEASE.durationMs,
      sigtermMs,
      sigkillMs,
    };
  } finally {
    await Promise.all(ctls.map((c) => c.stop()));
    await client.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
    client.close();
  }
}
