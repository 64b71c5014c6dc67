// The deployer against a real API server: a Gateway's proxy workload is server-side applied by
// gw-controller with owner references, follows GwParameters changes, leaves unchanged objects alone,
// prunes what is no longer rendered (Deployment → DaemonSet, PDB removed), keeps the session key, and
// applies again what is deleted by hand.
import { randomBytes } from 'node:crypto';
import { KubernetesObjectApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { installGwCrds } from '../support/gw-crds.js';
import { e2eKubeConfig, useNamespace } from '../support/kube.js';
import { eventually, startController, type ControllerProcess } from './support/controller-process.js';
import { apply, gateway, gatewayClass, parameters, read, tryRead, type Obj } from './support/objects.js';

const suffix = randomBytes(3).toString('hex');
const controllerName = `gw.dev/e2e-deploy-${suffix}`;
const className = `gw-deploy-${suffix}`;
const paramsRef = { infrastructure: { parametersRef: { group: 'gw.dev', kind: 'GwParameters', name: 'edge-params' } } };

interface Meta {
  uid: string;
  resourceVersion: string;
  ownerReferences?: { uid: string; kind: string; controller?: boolean }[];
  managedFields?: { manager: string; operation: string }[];
}

describe('deployer', () => {
  const ns = useNamespace('ctl-deploy');
  const kc = e2eKubeConfig();
  let ctl: ControllerProcess;
  let gwUid = '';

  beforeAll(async () => {
    await installGwCrds(inject('kubeconfig'), kc);
    ctl = startController({
      kubeconfig: inject('kubeconfig'),
      identity: `deploy-${suffix}`,
      controllerName,
      leaderElectionNamespace: ns(),
      extraArgs: ['--proxy-image', 'example.com/gw/proxy:1.2.3'],
    });
    await ctl.ready();
    await apply(kc, gatewayClass(className, controllerName));
    await apply(
      kc,
      parameters(ns(), 'edge-params', {
        deployment: { spec: { replicas: 2 } },
        podDisruptionBudget: { spec: { minAvailable: 1 } },
      }),
    );
    gwUid = (await apply(kc, gateway(ns(), 'edge', className, undefined, paramsRef))).metadata!.uid!;
  }, 300_000);

  afterAll(async () => {
    await ctl?.stop();
  });

  const obj = (apiVersion: string, kind: string, name = 'edge') => tryRead(kc, apiVersion, kind, name, ns());

  it('server-side applies the proxy workload as gw-controller, owned by the Gateway', async () => {
    const dep = await eventually(
      async () => {
        const d = await obj('apps/v1', 'Deployment');
        return d && (d.spec as { replicas?: number }).replicas === 2 ? d : undefined;
      },
      60_000,
      'Deployment with 2 replicas',
    );
    for (const [apiVersion, kind, name] of [
      ['v1', 'ServiceAccount', 'edge'],
      ['v1', 'Service', 'edge'],
      ['v1', 'ConfigMap', 'edge-proxy'],
      ['policy/v1', 'PodDisruptionBudget', 'edge'],
    ] as const) {
      const o = await eventually(() => obj(apiVersion, kind, name), 30_000, `${kind} ${name}`);
      const meta = o.metadata as unknown as Meta;
      expect(meta.ownerReferences, `${kind} owner`).toEqual([
        expect.objectContaining({ kind: 'Gateway', uid: gwUid, controller: true }),
      ]);
      expect(
        meta.managedFields?.some((f) => f.manager === 'gw-controller' && f.operation === 'Apply'),
        `${kind} applied by gw-controller`,
      ).toBe(true);
    }
    const containers = (dep.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec
      .containers;
    expect(containers[0]!.image).toBe('example.com/gw/proxy:1.2.3');
    const bundle = await eventually(() => obj('v1', 'ConfigMap', 'gw-xds-ca'), 30_000, 'xDS CA bundle ConfigMap');
    const ca = await read(kc, 'v1', 'Secret', 'gw-xds-ca', ns());
    expect((bundle.data as Record<string, string>)['ca.crt']).toBe(
      Buffer.from(String((ca.data as Record<string, string>)['ca.crt']), 'base64').toString('utf8'),
    );
    const secret = await eventually(() => obj('v1', 'Secret', 'edge-session-key'), 30_000, 'session-key Secret');
    // The Secret holds the key as base64 text (an env var cannot carry raw bytes): 32 bytes once decoded.
    const keyText = Buffer.from(String((secret.data as Record<string, string>)['session-key']), 'base64').toString();
    expect(Buffer.from(keyText, 'base64')).toHaveLength(32);
  });

  it('applies a deleted Deployment and Service again without a controller restart', async () => {
    const before = new Map<string, string>();
    for (const [apiVersion, kind] of [
      ['apps/v1', 'Deployment'],
      ['v1', 'Service'],
    ] as const) {
      const o = (await obj(apiVersion, kind))!;
      before.set(kind, o.metadata!.uid!);
      await KubernetesObjectApi.makeApiClient(kc).delete({
        apiVersion,
        kind,
        metadata: { name: 'edge', namespace: ns() },
      });
    }
    const started = Date.now();
    for (const [apiVersion, kind] of [
      ['apps/v1', 'Deployment'],
      ['v1', 'Service'],
    ] as const) {
      const back = await eventually(
        async () => {
          const o = await obj(apiVersion, kind);
          return o && o.metadata!.uid !== before.get(kind) ? o : undefined;
        },
        30_000,
        `${kind} applied again`,
      );
      expect((back.metadata as unknown as Meta).ownerReferences).toEqual([
        expect.objectContaining({ kind: 'Gateway', uid: gwUid }),
      ]);
    }
    expect(ctl.exited()).toBe(false);
    console.log(`e2e: deleted Deployment and Service applied again after ${Date.now() - started} ms`);
  });

  it('updates the Deployment when GwParameters change and leaves unchanged objects alone', async () => {
    const service = (await obj('v1', 'Service'))!;
    const secret = (await obj('v1', 'Secret', 'edge-session-key'))!;
    await apply(
      kc,
      parameters(ns(), 'edge-params', {
        deployment: { spec: { replicas: 3 } },
        podDisruptionBudget: { spec: { minAvailable: 1 } },
      }),
    );
    await eventually(
      async () =>
        ((await obj('apps/v1', 'Deployment'))?.spec as { replicas?: number } | undefined)?.replicas === 3 || undefined,
      60_000,
      'Deployment with 3 replicas',
    );
    expect((await obj('v1', 'Service'))!.metadata!.resourceVersion).toBe(service.metadata!.resourceVersion);
    expect((await obj('v1', 'Secret', 'edge-session-key'))!.data).toEqual(secret.data);
  });

  it('switches to a DaemonSet and prunes the Deployment and the removed PodDisruptionBudget', async () => {
    const secret = (await obj('v1', 'Secret', 'edge-session-key'))!;
    await apply(kc, parameters(ns(), 'edge-params', { workload: { kind: 'DaemonSet' } }));
    const ds = await eventually(() => obj('apps/v1', 'DaemonSet'), 60_000, 'DaemonSet');
    expect((ds.metadata as unknown as Meta).ownerReferences?.[0]?.uid).toBe(gwUid);
    await eventually(
      async () => ((await obj('apps/v1', 'Deployment')) ? undefined : true),
      30_000,
      'Deployment pruned',
    );
    await eventually(
      async () => ((await obj('policy/v1', 'PodDisruptionBudget')) ? undefined : true),
      30_000,
      'PodDisruptionBudget pruned',
    );
    expect((await obj('v1', 'Secret', 'edge-session-key'))!.data).toEqual(secret.data);
  });

  it('reports parameters it cannot render as a Gateway condition instead of applying half', async () => {
    const before = (await obj('apps/v1', 'DaemonSet'))!.metadata!.resourceVersion;
    await apply(
      kc,
      parameters(ns(), 'edge-params', {
        workload: { kind: 'DaemonSet' },
        service: { spec: { ports: [{ port: 8080, $patch: 'merge' }] } },
      }),
    );
    const cond = await eventually(
      async () => {
        const g: Obj = await read(kc, 'gateway.networking.k8s.io/v1', 'Gateway', 'edge', ns());
        const c = (
          (g.status?.conditions ?? []) as { type: string; status: string; reason: string; message: string }[]
        ).find((x) => x.type === 'Accepted');
        return c?.status === 'False' && c.reason === 'InvalidParameters' ? c : undefined;
      },
      60_000,
      'Gateway Accepted=False InvalidParameters',
    );
    expect(cond.message).toMatch(/GwParameters .*edge-params.*spec\.service\.spec\.ports\[0\]\.\$patch/);
    expect((await obj('apps/v1', 'DaemonSet'))!.metadata!.resourceVersion).toBe(before);
    expect(ctl.exited()).toBe(false);
  });
});
