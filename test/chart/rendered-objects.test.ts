import { describe, expect, it } from 'vitest';
import { renderCase, valuesCases, type K8sObject } from './helm-run.js';
import { checkObject } from './k8s-structure.js';

const cases = valuesCases();

describe('rendered objects match the Kubernetes API types', () => {
  it.each(cases)('every object of %s is well-formed and well-typed', (name) => {
    const objects = renderCase(name);
    expect(objects.length).toBeGreaterThan(0);
    expect(objects.flatMap(checkObject)).toEqual([]);
    const ids = objects.map((o) => `${o.apiVersion}/${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`);
    expect(
      ids.filter((id, i) => ids.indexOf(id) !== i),
      'duplicate objects',
    ).toEqual([]);
  });
});

// The checker itself must catch what it claims to, or the test above proves nothing.
describe('the structure checker', () => {
  const deployment = (spec: unknown): K8sObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'gw', namespace: 'ns' },
    spec,
  });
  const template = (container: Record<string, unknown>) => ({
    selector: { matchLabels: { a: 'b' } },
    template: { spec: { containers: [{ name: 'c', image: 'i', ...container }] } },
  });

  it('accepts a minimal valid Deployment', () => {
    expect(checkObject(deployment(template({})))).toEqual([]);
  });

  it('reports a misspelt field with its path', () => {
    expect(checkObject(deployment(template({ imagePullPolcy: 'Always' })))).toEqual([
      'Deployment ns/gw: spec.template.spec.containers[0].imagePullPolcy: is not a field of V1Container',
    ]);
  });

  it('reports a wrongly typed field', () => {
    expect(checkObject(deployment(template({ ports: [{ containerPort: '80' }] })))).toEqual([
      'Deployment ns/gw: spec.template.spec.containers[0].ports[0].containerPort: must be int32, got "80"',
    ]);
  });

  it('reports a missing required field', () => {
    expect(checkObject(deployment(template({ env: [{ value: 'x' }] })))).toEqual([
      'Deployment ns/gw: spec.template.spec.containers[0].env[0].name: is required',
    ]);
  });

  it('reports a namespace on a cluster-scoped kind and a bad label value', () => {
    const role: K8sObject = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'r', namespace: 'ns', labels: { a: 'not ok!' } },
      rules: [],
    };
    expect(checkObject(role)).toEqual([
      'ClusterRole ns/r: metadata.labels[a]: is not a valid label value: "not ok!"',
      'ClusterRole ns/r: metadata.namespace: must not be set on a cluster-scoped kind',
    ]);
  });

  it('checks custom kinds against their CRD schema', () => {
    const podMonitor: K8sObject = {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PodMonitor',
      metadata: { name: 'p', namespace: 'ns' },
      spec: { selector: {}, podMetricsEndpoints: [{ targetPorts: 1 }] },
    };
    expect(checkObject(podMonitor)).toEqual([
      'PodMonitor ns/p: spec.podMetricsEndpoints.0: must NOT have additional properties',
    ]);
  });

  it('refuses a kind it has no schema for', () => {
    expect(checkObject({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } })).toEqual([
      'Widget w: : kind example.com/v1/Widget has no schema in the chart tests; add one',
    ]);
  });
});
