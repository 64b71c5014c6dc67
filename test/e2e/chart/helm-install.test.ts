// `helm install` / `upgrade` / `uninstall` of charts/gw as a platform team runs them. This file has a
// private API server: helm must find the Gw CRDs absent and install them from the chart's crds/ (on the
// shared server other files apply crds/ concurrently, and two appliers of one CRD race), and the
// releases can use the chart's real defaults (GatewayClass `gw`, namespace gw-system).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chartDir } from '../../chart/helm-run.js';
import { startCluster } from '../support/cluster.js';
import type { Cluster } from '../support/cluster.js';
import { applyFiles, crdNamesIn, kubeConfigFrom, kubectl, waitForCrdsEstablished } from '../support/kube.js';
import { e2eStateDir } from '../support/paths.js';
import {
  chartCrdFiles,
  controllerArgs,
  deploymentView,
  flagValue,
  getObject,
  helm,
  helmInstall,
  listNames,
  mustGet,
  releaseObjects,
} from './helm-release.js';

const chartCrdNames = crdNamesIn(chartCrdFiles());

const stateDir = join(e2eStateDir, 'chart-install');
const kubeconfig = join(stateDir, 'kubeconfig');
const get = (resource: string, name: string, namespace?: string) => getObject(kubeconfig, resource, name, namespace);
const must = (resource: string, name: string, namespace?: string) => mustGet(kubeconfig, resource, name, namespace);
const names = (resource: string, namespace?: string) => listNames(kubeconfig, resource, namespace);

/** Helm's server-side-apply entry on each CRD: its time changes if a later install re-applies the CRD. */
async function helmCrdEntries(): Promise<unknown[]> {
  return Promise.all(
    chartCrdNames.map(async (name) => {
      const crd = await must('customresourcedefinition', name);
      const fields = (crd.metadata as { managedFields?: { manager?: string }[] }).managedFields ?? [];
      return fields.filter((f) => f.manager === 'helm');
    }),
  );
}

describe('helm install of charts/gw', () => {
  let cluster: Cluster | undefined;
  const ns = 'gw-system';
  const tenantNs = 'gw-tenant';
  const listed = ['agents', 'tools'];

  beforeAll(async () => {
    cluster = await startCluster({ kubeconfig, logFile: join(stateDir, 'cluster.log') });
    const gatewayApiCrds = inject('gatewayApiCrdFiles');
    await applyFiles(kubeconfig, gatewayApiCrds);
    await waitForCrdsEstablished(kubeConfigFrom(kubeconfig), crdNamesIn(gatewayApiCrds));
    // rbac.gatewayNamespaces must exist before the install (Roles go into them).
    for (const name of [ns, tenantNs, ...listed, 'gw-gitops']) {
      const created = await kubectl(kubeconfig, ['create', 'namespace', name]);
      if (created.code !== 0) throw new Error(`kubectl create namespace ${name}: ${created.stderr}`);
    }
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('installs with default values: controller objects, GatewayClass gw and the Gw CRDs from crds/', async () => {
    expect(await Promise.all(chartCrdNames.map((name) => get('customresourcedefinition', name)))).toEqual(
      chartCrdNames.map(() => undefined),
    );
    const res = await helmInstall(kubeconfig, { name: 'gw', namespace: ns });
    expect(res.code, res.stderr).toBe(0);
    const status = JSON.parse((await helm(kubeconfig, ['status', 'gw', '--namespace', ns, '-o', 'json'])).stdout) as {
      info: { status: string };
    };
    expect(status.info.status).toBe('deployed');

    const deployment = await must('deployment', 'gw', ns);
    const args = controllerArgs(deployment);
    expect(args[0]).toBe('controller');
    expect(flagValue(args, '--controller-name')).toBe('gw.dev/gateway-controller');
    expect(flagValue(args, '--gateway-class-name')).toBe('gw');
    expect(flagValue(args, '--xds-mode')).toBe('tls');
    expect(flagValue(args, '--xds-port')).toBe('9978');
    expect(flagValue(args, '--health-port')).toBe('9093');
    expect(flagValue(args, '--metrics-port')).toBe('9092');
    expect(flagValue(args, '--log-level')).toBe('info');
    expect(flagValue(args, '--leader-election-namespace')).toBe(ns);
    expect(flagValue(args, '--proxy-image')).toBe('ghcr.io/gw-dev/proxy:0.1.0');
    expect(args).toContain('--leader-elect');
    // istio.enabled (default true) grants RBAC only; the controller has no flag for it.
    expect(args).not.toContain('--istio-enabled');
    expect(args).not.toContain('--gateway-namespaces');
    const pod = deploymentView(deployment);
    expect(pod.serviceAccountName).toBe('gw');
    expect(pod.containers[0]?.image).toBe('ghcr.io/gw-dev/controller:0.1.0');

    const service = (await must('service', 'gw', ns)) as unknown as {
      spec: { type: string; ports: { name: string; port: number; targetPort: unknown }[] };
    };
    expect(service.spec.type).toBe('ClusterIP');
    expect(service.spec.ports.map((p) => [p.name, p.port, p.targetPort])).toEqual([
      ['agw-grpc', 9978, 'agw-grpc'],
      ['health', 9093, 'health'],
      ['metrics', 9092, 'metrics'],
    ]);
    expect(await get('serviceaccount', 'gw', ns)).toBeDefined();

    // Read cluster-wide, write proxies cluster-wide (no rbac.gatewayNamespaces), leases in the release namespace.
    for (const name of [`gw-${ns}`, `gw-${ns}-workloads`, `gw-${ns}-istio`]) {
      await must('clusterrole', name);
      const binding = (await must('clusterrolebinding', name)) as unknown as {
        roleRef: { name: string };
        subjects: unknown[];
      };
      expect(binding.roleRef.name).toBe(name);
      expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'gw', namespace: ns }]);
    }
    expect(await names('role', ns)).toEqual(['gw-leader-election']);
    expect(await names('rolebinding', ns)).toEqual(['gw-leader-election']);

    const gatewayClass = (await must('gatewayclass', 'gw')) as unknown as { spec: Record<string, unknown> };
    expect(gatewayClass.spec.controllerName).toBe('gw.dev/gateway-controller');
    expect(gatewayClass.spec.parametersRef).toBeUndefined();

    const crds = await waitForCrdsEstablished(kubeConfigFrom(kubeconfig), chartCrdNames);
    expect(crds.map((c) => c.name).sort()).toEqual([
      'gwbackends.gw.dev',
      'gwmodels.gw.dev',
      'gwparameters.gw.dev',
      'gwpolicies.gw.dev',
    ]);
    expect((await helmCrdEntries()).every((entries) => Array.isArray(entries) && entries.length === 1)).toBe(true);
  });

  it('installs a second release with rbac.gatewayNamespaces after the documented CRD upgrade step: Roles only in the listed namespaces, CRDs unchanged', async () => {
    const upgradeStep = await kubectl(kubeconfig, [
      'apply',
      '--server-side',
      '--field-manager=helm',
      ...chartCrdFiles().flatMap((f) => ['-f', f]),
    ]);
    expect(upgradeStep.code, upgradeStep.stderr).toBe(0);
    const crdsBefore = await helmCrdEntries();
    // A second controller in one cluster: its own class and controller name (docs/chart.md).
    const res = await helmInstall(kubeconfig, {
      name: 'gw',
      namespace: tenantNs,
      values: { gatewayClassName: tenantNs, controllerName: `gw.dev/${tenantNs}`, 'rbac.gatewayNamespaces': listed },
    });
    expect(res.code, res.stderr).toBe(0);

    expect(flagValue(controllerArgs(await must('deployment', 'gw', tenantNs)), '--gateway-namespaces')).toBe(
      listed.join(','),
    );
    for (const gatewayNs of listed) {
      expect(await names('role', gatewayNs)).toEqual(['gw-istio', 'gw-workloads']);
      for (const name of ['gw-istio', 'gw-workloads']) {
        const binding = (await must('rolebinding', name, gatewayNs)) as unknown as {
          roleRef: { kind: string; name: string };
          subjects: unknown[];
        };
        expect(binding.roleRef).toMatchObject({ kind: 'Role', name });
        expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'gw', namespace: tenantNs }]);
      }
    }
    expect(await get('clusterrolebinding', `gw-${tenantNs}-workloads`)).toBeUndefined();
    expect(await get('clusterrolebinding', `gw-${tenantNs}-istio`)).toBeUndefined();
    expect(await names('role', tenantNs)).toEqual(['gw-leader-election']);
    await must('clusterrolebinding', `gw-${tenantNs}`);
    const gatewayClass = (await must('gatewayclass', tenantNs)) as unknown as { spec: { controllerName: string } };
    expect(gatewayClass.spec.controllerName).toBe(`gw.dev/${tenantNs}`);
    // The first release's cluster-scoped objects are untouched (names carry the release namespace).
    expect(
      ((await must('gatewayclass', 'gw')) as unknown as { spec: { controllerName: string } }).spec.controllerName,
    ).toBe('gw.dev/gateway-controller');

    // helm 4 re-applies identical crds/ as the same field manager: a no-op, nothing changes hands.
    expect(await helmCrdEntries()).toEqual(crdsBefore);
    await waitForCrdsEstablished(kubeConfigFrom(kubeconfig), chartCrdNames);
  });

  it('helm upgrade with controller.xds.mode plaintext rewrites the controller args', async () => {
    const before = await must('deployment', 'gw', ns);
    const res = await helm(kubeconfig, [
      'upgrade',
      'gw',
      chartDir,
      '--namespace',
      ns,
      '--set',
      'controller.xds.mode=plaintext',
      '--wait=hookOnly',
    ]);
    expect(res.code, res.stderr).toBe(0);

    const after = await must('deployment', 'gw', ns);
    const args = controllerArgs(after);
    expect(flagValue(args, '--xds-mode')).toBe('plaintext');
    expect(args.filter((a) => a === '--xds-mode')).toHaveLength(1);
    // Only that flag changed.
    const beforeArgs = controllerArgs(before);
    expect(args.filter((a, i) => a !== beforeArgs[i])).toEqual(['plaintext']);
    expect((after.metadata as { generation?: number }).generation).toBe(
      ((before.metadata as { generation?: number }).generation ?? 0) + 1,
    );
    const history = JSON.parse((await helm(kubeconfig, ['history', 'gw', '--namespace', ns, '-o', 'json'])).stdout) as {
      revision: number;
      status: string;
    }[];
    expect(history.map((h) => [h.revision, h.status])).toEqual([
      [1, 'superseded'],
      [2, 'deployed'],
    ]);
  });

  it('helm uninstall removes every object of the release and keeps the CRDs', async () => {
    const objects = await releaseObjects(kubeconfig, 'gw', ns);
    expect(objects.map((o) => o.kind)).toEqual(
      expect.arrayContaining(['Deployment', 'Service', 'ServiceAccount', 'ClusterRole', 'GatewayClass']),
    );
    const res = await helm(kubeconfig, ['uninstall', 'gw', '--namespace', ns]);
    expect(res.code, res.stderr).toBe(0);

    const left: string[] = [];
    for (const obj of objects) {
      const group = obj.apiVersion.includes('/') ? obj.apiVersion.split('/')[0] : '';
      const resource = group ? `${obj.kind.toLowerCase()}.${group}` : obj.kind.toLowerCase();
      if (await get(resource, obj.metadata.name, obj.metadata.namespace))
        left.push(`${obj.kind} ${obj.metadata.namespace ?? ''}/${obj.metadata.name}`);
    }
    expect(left).toEqual([]);
    // The CRDs stay (helm never deletes crds/), and the other release still works off them.
    await waitForCrdsEstablished(kubeConfigFrom(kubeconfig), chartCrdNames);
    const tenant = JSON.parse(
      (await helm(kubeconfig, ['status', 'gw', '--namespace', tenantNs, '-o', 'json'])).stdout,
    ) as { info: { status: string } };
    expect(tenant.info.status).toBe('deployed');
    await must('deployment', 'gw', tenantNs);
  });

  it('with CRDs owned by another field manager helm install fails on the conflict and --skip-crds installs', async () => {
    const takeOver = await kubectl(kubeconfig, [
      'apply',
      '--server-side',
      '--force-conflicts',
      '--field-manager=crd-admin',
      ...chartCrdFiles().flatMap((f) => ['-f', f]),
    ]);
    expect(takeOver.code, takeOver.stderr).toBe(0);
    const values = { gatewayClassName: 'gw-gitops', controllerName: 'gw.dev/gw-gitops' };
    const conflicting = await helmInstall(kubeconfig, { name: 'gw', namespace: 'gw-gitops', values });
    expect(conflicting.code).not.toBe(0);
    expect(conflicting.stderr).toMatch(/conflict with "crd-admin"/);
    const skipping = await helmInstall(kubeconfig, { name: 'gw', namespace: 'gw-gitops', values, skipCrds: true });
    expect(skipping.code, skipping.stderr).toBe(0);
    await must('deployment', 'gw', 'gw-gitops');
  });
});
