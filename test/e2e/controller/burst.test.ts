// A burst of objects written at once is coalesced: the controller (the real translator, against the
// real API server) runs a bounded number of translation passes, translates each gateway at most once
// per pass, and its published snapshots end up holding every route and every route's policy.
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { startClusterController, type ClusterController } from '../../../src/controller/cluster.js';
import { KubeClient, loadKubeConfig } from '../../../src/controller/kube-client.js';
import { installGwCrds } from '../support/gw-crds.js';
import { e2eKubeConfig } from '../support/kube.js';
import { eventually } from './support/controller-process.js';
import { burstPolicy, burstRoute, createBurstFixture, snapshotsHold } from './support/burst-objects.js';

const suffix = randomBytes(3).toString('hex');
const ns = `burst-${suffix}`;
const controllerName = `gw.dev/e2e-burst-${suffix}`;
const GATEWAYS = 3;
const ROUTES = 100;
const POLICIES = 100;

describe('a burst of 200 objects', () => {
  let client: KubeClient;
  let ctl: ClusterController;

  beforeAll(async () => {
    await installGwCrds(inject('kubeconfig'), e2eKubeConfig());
    client = new KubeClient(loadKubeConfig(inject('kubeconfig')));
    await createBurstFixture(client, ns, controllerName, GATEWAYS);
    ctl = await startClusterController({
      kubeconfig: inject('kubeconfig'),
      controllerName,
      leaderElect: false,
      leaderElectionNamespace: ns,
      log: pino({ level: 'silent' }),
      // A quiet time no pause between the writes below reaches on a loaded machine, so the count is structural
      // (before coalescing: one pass per watch event, about 200).
      translateDebounce: { quietMs: 3_000, maxDelayMs: 20_000 },
    });
    await ctl.ready();
  }, 120_000);

  afterAll(async () => {
    await ctl?.stop();
    await client?.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
    await client?.request('DELETE', `/apis/gateway.networking.k8s.io/v1/gatewayclasses/${ns}`).catch(() => undefined);
    client?.close();
  });

  it('is translated in at most three passes, each gateway once per pass, and every object reaches the snapshot', async () => {
    const before = ctl.translationStats();
    const writes = [
      ...Array.from(
        { length: ROUTES },
        (_, i) => () =>
          client.request('POST', `/apis/gateway.networking.k8s.io/v1/namespaces/${ns}/httproutes`, {
            body: burstRoute(i, GATEWAYS),
          }),
      ),
      ...Array.from(
        { length: POLICIES },
        (_, i) => () =>
          client.request('POST', `/apis/gw.dev/v1alpha1/namespaces/${ns}/gwpolicies`, { body: burstPolicy(i) }),
      ),
    ];
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < writes.length) await writes[next++]!();
      }),
    );
    const gateways = Array.from({ length: GATEWAYS }, (_, g) => `${ns}/gw-${g}`);
    await eventually(
      async () => (snapshotsHold(ctl, gateways, ns, ROUTES, POLICIES) ? true : undefined),
      60_000,
      'every route and policy in the snapshots',
    );
    const after = ctl.translationStats();
    const passes = after.passes - before.passes;
    // One pass for the burst; one more if a write's watch event came in after it began, and one that
    // other test files' writes (the controller watches the whole cluster) may already have made due.
    expect(passes).toBeGreaterThanOrEqual(1);
    expect(passes).toBeLessThanOrEqual(3);
    // Each of our gateways at most once per pass (other test files' gateways share the cluster).
    for (const g of gateways)
      expect((after.byGateway.get(g) ?? 0) - (before.byGateway.get(g) ?? 0), g).toBeLessThanOrEqual(passes);
  }, 120_000);
});
