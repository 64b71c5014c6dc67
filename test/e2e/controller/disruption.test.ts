// The API server restarts under a running controller (same port, same etcd data): the controller's
// watches fail, back off and resume or relist, and what was applied around the outage ends up in status.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubernetesObjectApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../support/cluster.js';
import { gatewayApiModule } from '../support/gateway-api.js';
import { installGwCrds } from '../support/gw-crds.js';
import { applyFiles, crdNamesIn, kubeConfigFrom, waitForCrdsEstablished } from '../support/kube.js';
import { e2eLogDir, eventually, startController, type ControllerProcess } from './support/controller-process.js';
import {
  apply,
  conditionsOf,
  gateway,
  gatewayClass,
  mcpBackend,
  mcpRoute,
  read,
  trueAt,
  tryRead,
} from './support/objects.js';
import { freePort } from '../../proxy/ports.js';

const GW_API = 'gateway.networking.k8s.io/v1';
const suffix = randomBytes(3).toString('hex');
const controllerName = `gw.dev/e2e-disrupt-${suffix}`;
const className = `gw-disrupt-${suffix}`;
const ns = 'disrupt';

describe('API server disruption', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-disrupt-'));
  const kubeconfig = join(dataDir, 'kubeconfig');
  let port = 0;
  let cluster: Cluster | undefined;
  let ctl: ControllerProcess | undefined;
  const start = () =>
    startCluster({
      kubeconfig,
      port,
      dataDir: join(dataDir, 'data'),
      logFile: join(e2eLogDir, `disrupt-cluster-${suffix}.log`),
    });

  beforeAll(async () => {
    port = await freePort();
    cluster = await start();
    const kc = kubeConfigFrom(kubeconfig);
    const gw = gatewayApiModule();
    await applyFiles(kubeconfig, gw.crdFiles);
    await waitForCrdsEstablished(kc, crdNamesIn(gw.crdFiles));
    await installGwCrds(kubeconfig, kc);
    await KubernetesObjectApi.makeApiClient(kc).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    ctl = startController({
      kubeconfig,
      identity: `disrupt-${suffix}`,
      controllerName,
      leaderElectionNamespace: ns,
      lease: { durationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 },
    });
    await ctl.ready();
  }, 300_000);

  afterAll(async () => {
    await ctl?.stop();
    await cluster?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  it('recovers after a restart of the API server and converges on what was applied', async () => {
    let kc = kubeConfigFrom(kubeconfig);
    await apply(kc, gatewayClass(className, controllerName));
    await apply(kc, gateway(ns, 'web', className));
    await apply(kc, mcpBackend(ns, 'mcp', 3001));
    await apply(kc, mcpRoute(ns, 'first', 'web', 'mcp'));
    await eventually(
      async () => {
        const g = await read(kc, GW_API, 'Gateway', 'web', ns);
        return trueAt(conditionsOf(g.status), 'Programmed', g.metadata?.generation) &&
          (g.status?.listeners as { attachedRoutes: number }[])[0]?.attachedRoutes === 1
          ? true
          : undefined;
      },
      60_000,
      'first status before the outage',
    );

    const failedBefore = ctl!.count('list/watch failed; retrying');
    await cluster!.stop();
    // The outage lasts until the controller's watches have failed and are backing off.
    await eventually(
      async () => (ctl!.count('list/watch failed; retrying') >= failedBefore + 3 ? true : undefined),
      60_000,
      'the watches failing during the outage',
    );
    cluster = await start();
    kc = kubeConfigFrom(kubeconfig);

    // Changes right after the restart, while the controller's watches are still backing off.
    const changed = await apply(
      kc,
      gateway(ns, 'web', className, [
        { name: 'http', port: 8080, protocol: 'HTTP' },
        { name: 'alt', port: 8081, protocol: 'HTTP' },
      ]),
    );
    await apply(kc, mcpRoute(ns, 'second', 'web', 'mcp'));
    await KubernetesObjectApi.makeApiClient(kc).delete({
      apiVersion: GW_API,
      kind: 'HTTPRoute',
      metadata: { name: 'first', namespace: ns },
    });

    const g = await eventually(
      async () => {
        const cur = await read(kc, GW_API, 'Gateway', 'web', ns);
        const listeners = (cur.status?.listeners ?? []) as { name: string; attachedRoutes: number }[];
        return trueAt(conditionsOf(cur.status), 'Accepted', changed.metadata!.generation) &&
          listeners.length === 2 &&
          listeners.every((l) => l.attachedRoutes === 1)
          ? cur
          : undefined;
      },
      90_000,
      'Gateway status after the outage',
    );
    expect((g.status!.listeners as { name: string }[]).map((l) => l.name).sort()).toEqual(['alt', 'http']);
    const second = await eventually(
      async () => {
        const r = await tryRead(kc, GW_API, 'HTTPRoute', 'second', ns);
        const ps = (r?.status?.parents ?? []) as {
          controllerName: string;
          conditions: {
            type: string;
            status: string;
            observedGeneration: number;
            reason: string;
            lastTransitionTime: string;
          }[];
        }[];
        return ps.find((p) => p.controllerName === controllerName && trueAt(p.conditions, 'Accepted', 1));
      },
      60_000,
      'second route accepted',
    );
    expect(second.controllerName).toBe(controllerName);
    expect(await tryRead(kc, GW_API, 'HTTPRoute', 'first', ns)).toBeUndefined();
    expect(ctl!.exited()).toBe(false);
  }, 300_000);
});
