// Two controller replicas share a Lease: only the holder writes status; when it dies without
// releasing, the other takes over within the lease duration; a graceful stop hands over at once.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { installGwCrds } from '../support/gw-crds.js';
import { e2eKubeConfig, useNamespace } from '../support/kube.js';
import { eventually, startController, type ControllerProcess } from './support/controller-process.js';
import { apply, conditionsOf, gateway, gatewayClass, read, trueAt } from './support/objects.js';

const GW_API = 'gateway.networking.k8s.io/v1';
const suffix = randomBytes(3).toString('hex');
const controllerName = `gw.dev/e2e-le-${suffix}`;
const className = `gw-le-${suffix}`;
const lease = { durationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 };

describe('leader election', () => {
  const ns = useNamespace('ctl-le');
  const kc = e2eKubeConfig();
  const ctls: ControllerProcess[] = [];

  const holder = async (): Promise<string | undefined> => {
    const l = await read(kc, 'coordination.k8s.io/v1', 'Lease', 'gw-controller', ns());
    return (l.spec?.holderIdentity as string | undefined) || undefined;
  };
  const replicas = () => ctls.map((c) => c.describe()).join(' | ');
  /** The replica holding the lease and a live other one, else an error that says what each replica is doing. */
  const roles = async (): Promise<{ leader: ControllerProcess; follower: ControllerProcess }> => {
    const id = await holder();
    const leader = ctls.find((c) => c.identity === id);
    const follower = ctls.find((c) => c.identity !== id && !c.exited());
    if (!leader || !follower) throw new Error(`lease holder ${id ?? '(none)'}; replicas: ${replicas()}`);
    return { leader, follower };
  };

  beforeAll(async () => {
    await installGwCrds(inject('kubeconfig'), kc);
    for (const id of ['a', 'b']) {
      ctls.push(
        startController({
          kubeconfig: inject('kubeconfig'),
          identity: `le-${id}-${suffix}`,
          controllerName,
          leaderElectionNamespace: ns(),
          lease,
        }),
      );
    }
    await Promise.all(ctls.map((c) => c.ready()));
    await apply(kc, gatewayClass(className, controllerName));
    await apply(kc, gateway(ns(), 'web', className));
  }, 300_000);

  afterAll(async () => {
    await Promise.all(ctls.map((c) => c.stop()));
  });

  it('lets only the lease holder write status', async () => {
    await eventually(holder, 30_000, 'a lease holder');
    await eventually(
      async () => trueAt(conditionsOf((await read(kc, GW_API, 'Gateway', 'web', ns())).status), 'Programmed', 1),
      60_000,
      'Gateway Programmed',
    );
    const { leader, follower } = await roles();
    await eventually(
      async () => (leader.count('status written') > 0 ? true : undefined),
      10_000,
      'the leader logging its status writes',
    );
    expect(follower.count('status written')).toBe(0);
    expect(follower.count('became leader')).toBe(0);
    // The dashboard's leader panel: gw_controller_leader is 1 on the lease holder only.
    const leaderGauge = async (c: ControllerProcess) =>
      /^gw_controller_leader (\d)/m.exec(await (await fetch(`http://127.0.0.1:${c.metricsPort}/metrics`)).text())?.[1];
    expect(await leaderGauge(leader)).toBe('1');
    expect(await leaderGauge(follower)).toBe('0');
  });

  it('fails over to the other replica within the lease duration when the leader dies', async () => {
    const { leader, follower } = await roles();
    const before = await read(kc, 'coordination.k8s.io/v1', 'Lease', 'gw-controller', ns());
    await leader.stop('SIGKILL');
    await eventually(
      async () => ((await holder()) === follower.identity ? true : undefined),
      lease.durationMs * 5,
      'the follower holding the lease',
    );
    const after = await read(kc, 'coordination.k8s.io/v1', 'Lease', 'gw-controller', ns());
    // Measured on the Lease itself (both replicas share this machine's clock): from the dead leader's
    // last renewal we saw to the follower's acquisition. Lease duration, one retry period, and slack
    // for a busy machine (renewals and polls run late when two cores carry the whole suite).
    const tookMs = Date.parse(String(after.spec!.acquireTime)) - Date.parse(String(before.spec!.renewTime));
    expect(tookMs).toBeGreaterThanOrEqual(lease.durationMs - lease.retryPeriodMs);
    expect(tookMs).toBeLessThan(lease.durationMs + lease.retryPeriodMs + 3_000);
    expect(after.spec!.leaseTransitions).toBe(Number(before.spec!.leaseTransitions ?? 0) + 1);

    const applied = await apply(
      kc,
      gateway(ns(), 'web', className, [
        { name: 'http', port: 8080, protocol: 'HTTP' },
        { name: 'b', port: 8081, protocol: 'HTTP' },
      ]),
    );
    await eventually(
      async () =>
        trueAt(
          conditionsOf((await read(kc, GW_API, 'Gateway', 'web', ns())).status),
          'Accepted',
          applied.metadata!.generation,
        ),
      30_000,
      'new leader writing status',
    );
    // Its log line may trail the write it reports.
    await eventually(
      async () => (follower.count('status written') > 0 ? true : undefined),
      10_000,
      'the new leader logging its status write',
    );
  });

  it('hands the lease over at once when the leader stops gracefully', async () => {
    const next = startController({
      kubeconfig: inject('kubeconfig'),
      identity: `le-c-${suffix}`,
      controllerName,
      leaderElectionNamespace: ns(),
      lease: { ...lease, durationMs: 60_000 },
    });
    ctls.push(next);
    await next.ready();
    const { leader } = await roles();
    await leader.stop('SIGTERM');
    const released = leader.logs.find((l) => l.msg === 'lease released');
    expect(released, `no 'lease released' from ${leader.describe()}`).toBeDefined();
    await eventually(
      async () => ((await holder()) === next.identity ? true : undefined),
      10_000,
      'the new replica holding the lease',
    );
    // From the release (the old leader's log time) to the new holder's acquisition (the Lease), one
    // machine's clock. Waiting for expiry instead would take at least the old lease's duration less
    // one renewal period after its last renewal.
    const acquired = Date.parse(
      String((await read(kc, 'coordination.k8s.io/v1', 'Lease', 'gw-controller', ns())).spec!.acquireTime),
    );
    expect(acquired - Number(released!.time)).toBeLessThan(lease.durationMs - lease.retryPeriodMs);
  });
});
