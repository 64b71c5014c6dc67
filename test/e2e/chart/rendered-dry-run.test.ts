// Every object `helm template` renders for each test/chart/testdata/<case>.values.yaml is accepted by the
// real API server's schema: server-side dry-run apply with strict field validation (unknown or duplicate
// fields are errors, as `kubectl apply` asks by default).
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { chartDir, testdataDir, valuesCases } from '../../chart/helm-run.js';
import type { K8sObject } from '../../chart/helm-run.js';
import { startCluster } from '../support/cluster.js';
import type { Cluster } from '../support/cluster.js';
import { e2eKubeConfig, kubeConfigFrom, kubectl, useNamespace } from '../support/kube.js';
import { e2eStateDir } from '../support/paths.js';
import { helm } from './helm-release.js';

/**
 * Kinds whose CRDs the e2e API server does not have (the Prometheus operator and VPA CRDs are neither in
 * the Go module cache nor reachable without network). Their objects are checked offline against reduced
 * CRD schemas by test/chart/rendered-objects.test.ts; here they are skipped, by name, with this reason,
 * and only while the API server does not serve their group version.
 */
const crdsNotInstalled: Record<string, string> = {
  'monitoring.coreos.com/v1 ServiceMonitor': 'the Prometheus operator CRDs are not installed in the e2e API server',
  'monitoring.coreos.com/v1 PodMonitor': 'the Prometheus operator CRDs are not installed in the e2e API server',
  'autoscaling.k8s.io/v1 VerticalPodAutoscaler': 'the VPA CRDs are not installed in the e2e API server',
};

// The shared API server is single-stack IPv4 with service range 10.0.0.0/24. A Service that pins cluster
// IPs or asks for two IP families is valid only on a cluster configured for them, so it goes to a private
// dual-stack server with the kubeadm default range the values files use.
const dualStackArgs = ['--service-cluster-ip-range=10.96.0.0/16,fd00::/108'];

function needsDualStack(obj: K8sObject): boolean {
  if (obj.kind !== 'Service' || obj.apiVersion !== 'v1') return false;
  const spec =
    (obj as { spec?: { clusterIP?: string; clusterIPs?: string[]; ipFamilies?: string[]; ipFamilyPolicy?: string } })
      .spec ?? {};
  return (
    Boolean(spec.clusterIP && spec.clusterIP !== 'None') ||
    (spec.clusterIPs?.length ?? 0) > 1 ||
    (spec.ipFamilies?.length ?? 0) > 1
  );
}

const describeObject = (o: K8sObject) =>
  `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;

async function served(kubeconfig: string, apiVersion: string): Promise<boolean> {
  const res = await kubectl(kubeconfig, ['get', '--raw', `/apis/${apiVersion}`]);
  if (res.code === 0) return true;
  if (/NotFound|could not find the requested resource/i.test(res.stderr)) return false;
  throw new Error(`discovery of ${apiVersion} failed: ${res.stderr}`);
}

/**
 * The rendered objects as kubectl reads them: YAML 1.1 (an unquoted `on` is a boolean there), so a
 * scalar the chart forgot to quote fails here as it would for a user.
 */
function parseAsKubectl(text: string): K8sObject[] {
  return parseAllDocuments(text, { version: '1.1' }).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`rendered YAML does not parse: ${doc.errors[0]?.message}`);
    const value: unknown = doc.toJS();
    return value === null || value === undefined ? [] : [value as K8sObject];
  });
}

/** Server-side dry-run apply; returns the objects kubectl reports as applied, or throws with its error. */
async function dryRunApply(kubeconfig: string, objects: K8sObject[]): Promise<{ applied: string[]; warnings: string }> {
  // JSON documents: no second round of YAML typing between the parse above and the API server.
  const stdin = objects.map((o) => JSON.stringify(o)).join('\n---\n');
  const args = [
    'apply',
    '--server-side',
    '--dry-run=server',
    '--validate=strict',
    '--force-conflicts',
    '--field-manager=gw-e2e-dry-run',
    '-o',
    'name',
    '-f',
    '-',
  ];
  const res = await kubectl(kubeconfig, args, stdin);
  if (res.code !== 0) throw new Error(`the API server rejected rendered objects:\n${res.stderr || res.stdout}`);
  return { applied: res.stdout.split('\n').filter(Boolean), warnings: res.stderr.trim() };
}

async function ensureNamespaces(kubeconfig: string, names: string[]): Promise<string[]> {
  const core = kubeConfigFrom(kubeconfig).makeApiClient(CoreV1Api);
  const created: string[] = [];
  for (const name of names) {
    try {
      await core.createNamespace({ body: { metadata: { name } } });
      created.push(name);
    } catch (err) {
      if ((err as { code?: number }).code !== 409) throw err;
    }
  }
  return created;
}

describe('rendered chart objects against the API server (server-side dry run)', () => {
  const namespace = useNamespace('chart-dry-run');
  const createdNamespaces: string[] = [];
  let dualStack: Promise<Cluster> | undefined;
  const dualStackKubeconfig = join(e2eStateDir, 'chart-dual-stack', 'kubeconfig');

  function dualStackCluster(): Promise<Cluster> {
    dualStack ??= startCluster({
      kubeconfig: dualStackKubeconfig,
      logFile: join(e2eStateDir, 'chart-dual-stack', 'cluster.log'),
      apiserverArgs: dualStackArgs,
    });
    return dualStack;
  }

  afterAll(async () => {
    const core = e2eKubeConfig().makeApiClient(CoreV1Api);
    await Promise.all(createdNamespaces.map((name) => core.deleteNamespace({ name })));
    if (dualStack) await (await dualStack).stop();
  });

  const cases = valuesCases();
  it('has values cases to check', () => {
    expect(cases.length).toBeGreaterThan(10);
  });

  it.each(cases)('the API server accepts every object rendered for %s', async (caseName) => {
    const kubeconfig = inject('kubeconfig');
    const ns = namespace();
    const rendered = await helm(kubeconfig, [
      'template',
      'gw',
      chartDir,
      '--namespace',
      ns,
      '--values',
      join(testdataDir, `${caseName}.values.yaml`),
    ]);
    expect(rendered.code, rendered.stderr).toBe(0);
    const objects = parseAsKubectl(rendered.stdout);
    expect(objects.length).toBeGreaterThan(0);

    const checked: K8sObject[] = [];
    const dualStackObjects: K8sObject[] = [];
    for (const obj of objects) {
      const reason = crdsNotInstalled[`${obj.apiVersion} ${obj.kind}`];
      if (reason && !(await served(kubeconfig, obj.apiVersion))) {
        console.log(`${caseName}: skipping ${describeObject(obj)} (${obj.apiVersion}): ${reason}`);
      } else if (needsDualStack(obj)) {
        console.log(
          `${caseName}: checking ${describeObject(obj)} on a private dual-stack API server (${dualStackArgs.join(' ')})`,
        );
        dualStackObjects.push(obj);
      } else {
        checked.push(obj);
      }
    }
    // Objects aimed at other namespaces (rbac.gatewayNamespaces Roles) need those namespaces to exist.
    const others = [
      ...new Set(checked.map((o) => o.metadata.namespace).filter((n): n is string => n !== undefined && n !== ns)),
    ];
    createdNamespaces.push(...(await ensureNamespaces(kubeconfig, others)));

    const result = await dryRunApply(kubeconfig, checked);
    if (result.warnings) console.log(`${caseName}: API server warnings:\n${result.warnings}`);
    expect(result.applied).toHaveLength(checked.length);

    if (dualStackObjects.length > 0) {
      const cluster = await dualStackCluster();
      await ensureNamespaces(cluster.kubeconfig, [ns]);
      const viaDualStack = await dryRunApply(cluster.kubeconfig, dualStackObjects);
      if (viaDualStack.warnings) console.log(`${caseName}: dual-stack API server warnings:\n${viaDualStack.warnings}`);
      expect(viaDualStack.applied).toHaveLength(dualStackObjects.length);
    }
  });
});
