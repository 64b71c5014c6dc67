// `helm install` / `upgrade` / `uninstall` of charts/gw into the real API server, as a platform team runs them.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chartDir } from '../../chart/helm-run.js';
import { crdNamesIn, e2eKubeConfig, useNamespace, waitForCrdsEstablished } from '../support/kube.js';
import { controllerArgs, deploymentView, flagValue, getObject, helm, helmInstall, listNames, mustGet, releaseObjects } from './helm-release.js';

const chartCrdFiles = readdirSync(join(chartDir, 'crds'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => join(chartDir, 'crds', f));
const chartCrdNames = crdNamesIn(chartCrdFiles);

/** Helm's server-side-apply entry on a CRD: its time changes if a later install re-applies the CRD. */
async function helmCrdEntries(): Promise<unknown[]> {
  return Promise.all(
    chartCrdNames.map(async (name) => {
      const crd = await mustGet('customresourcedefinition', name);
      const fields = (crd.metadata as { managedFields?: { manager?: string }[] }).managedFields ?? [];
      return fields.filter((f) => f.manager === 'helm');
    }),
  );
}

describe('helm install of charts/gw', () => {
  const namespace = useNamespace('chart-install');
  const scopedNamespace = useNamespace('chart-scoped');
  const gatewayNamespaceA = useNamespace('chart-gwns-a');
  const gatewayNamespaceB = useNamespace('chart-gwns-b');
  // GatewayClass and ClusterRoles are cluster-scoped and every e2e file shares one API server, so each
  // release serves a class named after its namespace instead of the default `gw`.
  const className = () => namespace();
  // Cluster-scoped objects outlive the namespaces; the first release is uninstalled by its own test.
  afterAll(async () => {
    await helm(['uninstall', 'gw', '--namespace', scopedNamespace()]);
  });

  it('installs with default values and creates the controller objects the values describe', async () => {
    const ns = namespace();
    const res = await helmInstall({ name: 'gw', namespace: ns, values: { gatewayClassName: className(), 'controller.logLevel': 'debug' } });
    expect(res.code, res.stderr).toBe(0);
    const status = JSON.parse((await helm(['status', 'gw', '--namespace', ns, '-o', 'json'])).stdout) as { info: { status: string } };
    expect(status.info.status).toBe('deployed');

    const deployment = await mustGet('deployment', 'gw', ns);
    const args = controllerArgs(deployment);
    expect(args[0]).toBe('controller');
    expect(flagValue(args, '--controller-name')).toBe('gw.dev/gateway-controller');
    expect(flagValue(args, '--gateway-class-name')).toBe(className());
    expect(flagValue(args, '--xds-mode')).toBe('tls');
    expect(flagValue(args, '--xds-port')).toBe('9978');
    expect(flagValue(args, '--health-port')).toBe('9093');
    expect(flagValue(args, '--metrics-port')).toBe('9092');
    expect(flagValue(args, '--log-level')).toBe('debug');
    expect(flagValue(args, '--leader-election-namespace')).toBe(ns);
    expect(flagValue(args, '--proxy-image')).toBe('ghcr.io/gw-dev/proxy:0.1.0');
    expect(args).toContain('--leader-elect');
    expect(args).toContain('--istio-enabled');
    expect(args).not.toContain('--gateway-namespaces');
    const pod = deploymentView(deployment);
    expect(pod.serviceAccountName).toBe('gw');
    expect(pod.containers[0]?.image).toBe('ghcr.io/gw-dev/controller:0.1.0');

    const service = (await mustGet('service', 'gw', ns)) as unknown as { spec: { type: string; ports: { name: string; port: number; targetPort: unknown }[] } };
    expect(service.spec.type).toBe('ClusterIP');
    expect(service.spec.ports.map((p) => [p.name, p.port, p.targetPort])).toEqual([
      ['agw-grpc', 9978, 'agw-grpc'],
      ['health', 9093, 'health'],
      ['metrics', 9092, 'metrics'],
    ]);
    expect(await getObject('serviceaccount', 'gw', ns)).toBeDefined();

    // Read cluster-wide, write proxies cluster-wide (no rbac.gatewayNamespaces), leases in the release namespace.
    for (const name of [`gw-${ns}`, `gw-${ns}-workloads`, `gw-${ns}-istio`]) {
      await mustGet('clusterrole', name);
      const binding = (await mustGet('clusterrolebinding', name)) as unknown as { roleRef: { name: string }; subjects: unknown[] };
      expect(binding.roleRef.name).toBe(name);
      expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'gw', namespace: ns }]);
    }
    expect(await listNames('role', ns)).toEqual(['gw-leader-election']);
    expect(await listNames('rolebinding', ns)).toEqual(['gw-leader-election']);

    const gatewayClass = (await mustGet('gatewayclass', className())) as unknown as { spec: Record<string, unknown> };
    expect(gatewayClass.spec.controllerName).toBe('gw.dev/gateway-controller');
    expect(gatewayClass.spec.parametersRef).toBeUndefined();

    const crds = await waitForCrdsEstablished(e2eKubeConfig(), chartCrdNames);
    expect(crds.map((c) => c.name).sort()).toEqual(['gwbackends.gw.dev', 'gwmodels.gw.dev', 'gwparameters.gw.dev', 'gwpolicies.gw.dev']);
  });

  it('installs a second release with rbac.gatewayNamespaces: Roles only in the listed namespaces, CRDs left alone', async () => {
    const ns = scopedNamespace();
    const listed = [gatewayNamespaceA(), gatewayNamespaceB()];
    const crdsBefore = await helmCrdEntries();
    const res = await helmInstall({
      name: 'gw',
      namespace: ns,
      values: { gatewayClassName: ns, controllerName: `gw.dev/${ns}`, 'rbac.gatewayNamespaces': listed },
    });
    expect(res.code, res.stderr).toBe(0);

    expect(flagValue(controllerArgs(await mustGet('deployment', 'gw', ns)), '--gateway-namespaces')).toBe(listed.join(','));
    for (const gatewayNs of listed) {
      expect(await listNames('role', gatewayNs)).toEqual(['gw-istio', 'gw-workloads']);
      for (const name of ['gw-istio', 'gw-workloads']) {
        const binding = (await mustGet('rolebinding', name, gatewayNs)) as unknown as { roleRef: { kind: string; name: string }; subjects: unknown[] };
        expect(binding.roleRef).toMatchObject({ kind: 'Role', name });
        expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'gw', namespace: ns }]);
      }
    }
    expect(await getObject('clusterrolebinding', `gw-${ns}-workloads`)).toBeUndefined();
    expect(await getObject('clusterrolebinding', `gw-${ns}-istio`)).toBeUndefined();
    expect(await listNames('role', ns)).toEqual(['gw-leader-election']);
    await mustGet('clusterrolebinding', `gw-${ns}`);
    const gatewayClass = (await mustGet('gatewayclass', ns)) as unknown as { spec: { controllerName: string } };
    expect(gatewayClass.spec.controllerName).toBe(`gw.dev/${ns}`);

    // Helm installs crds/ only when absent: the second release must not re-apply (or own) them.
    expect(await helmCrdEntries()).toEqual(crdsBefore);
    await waitForCrdsEstablished(e2eKubeConfig(), chartCrdNames);
  });

  it('helm upgrade with controller.xds.mode plaintext rewrites the controller args', async () => {
    const ns = namespace();
    const before = await mustGet('deployment', 'gw', ns);
    const res = await helm(['upgrade', 'gw', chartDir, '--namespace', ns, '--reuse-values', '--set', 'controller.xds.mode=plaintext', '--wait=false']);
    expect(res.code, res.stderr).toBe(0);

    const after = await mustGet('deployment', 'gw', ns);
    const args = controllerArgs(after);
    expect(flagValue(args, '--xds-mode')).toBe('plaintext');
    expect(args.filter((a) => a === '--xds-mode')).toHaveLength(1);
    // Values kept by --reuse-values are still there.
    expect(flagValue(args, '--log-level')).toBe('debug');
    expect(flagValue(args, '--gateway-class-name')).toBe(className());
    expect((after.metadata as { generation?: number }).generation).toBe(((before.metadata as { generation?: number }).generation ?? 0) + 1);
    const history = JSON.parse((await helm(['history', 'gw', '--namespace', ns, '-o', 'json'])).stdout) as { revision: number; status: string }[];
    expect(history.map((h) => [h.revision, h.status])).toEqual([
      [1, 'superseded'],
      [2, 'deployed'],
    ]);
  });

  it('helm uninstall removes every object of the release and keeps the CRDs', async () => {
    const ns = namespace();
    const objects = await releaseObjects('gw', ns);
    expect(objects.map((o) => o.kind)).toEqual(expect.arrayContaining(['Deployment', 'Service', 'ServiceAccount', 'ClusterRole', 'GatewayClass']));
    const res = await helm(['uninstall', 'gw', '--namespace', ns]);
    expect(res.code, res.stderr).toBe(0);

    const left: string[] = [];
    for (const obj of objects) {
      const group = obj.apiVersion.includes('/') ? obj.apiVersion.split('/')[0] : '';
      const resource = group ? `${obj.kind.toLowerCase()}.${group}` : obj.kind.toLowerCase();
      if (await getObject(resource, obj.metadata.name, obj.metadata.namespace)) left.push(`${obj.kind} ${obj.metadata.namespace ?? ''}/${obj.metadata.name}`);
    }
    expect(left).toEqual([]);
    // The other release still works off the same CRDs.
    await waitForCrdsEstablished(e2eKubeConfig(), chartCrdNames);
    expect(JSON.parse((await helm(['status', 'gw', '--namespace', scopedNamespace(), '-o', 'json'])).stdout)).toMatchObject({ info: { status: 'deployed' } });
  });
});
