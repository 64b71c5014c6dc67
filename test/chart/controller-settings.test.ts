import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ownedNames } from '../../src/controller/config.js';
import {
  chartDir,
  findObject,
  helm,
  helmTemplate,
  parseManifest,
  renderCase,
  repoRoot,
  testdataDir,
  type K8sObject,
} from './helm-run.js';

interface Container {
  name: string;
  args?: string[];
  ports?: { name: string; containerPort: number }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  env?: { name: string; value?: string; valueFrom?: unknown }[];
}
interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

const podSpec = (objects: K8sObject[]) =>
  (findObject(objects, 'Deployment').spec as { template: { spec: { containers: Container[] } } }).template.spec;
const controllerArgs = (objects: K8sObject[]) =>
  podSpec(objects).containers.find((c) => c.name === 'controller')!.args!;
const caseValues = (name: string) =>
  parse(readFileSync(join(testdataDir, `${name}.values.yaml`), 'utf8')) as Record<string, unknown>;

/** Value of a `--flag VALUE` pair, or true for a bare boolean flag, or undefined when absent. */
function flag(args: string[], name: string): string | true | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const next = args[i + 1];
  return next === undefined || next.startsWith('--') ? true : next;
}

describe('controller command line', () => {
  const documented = new Set(
    readFileSync(join(repoRoot, 'docs', 'controller-cli.md'), 'utf8').match(/--[a-z][a-z-]*/g),
  );

  it.each([
    'defaults',
    'name-overrides',
    'istio-settings',
    'istio-istiod',
    'istio-auto',
    'rbac-gateway-namespaces',
    'service-fields',
  ])('passes only flags of docs/controller-cli.md (%s)', (name) => {
    const args = controllerArgs(renderCase(name));
    expect(args[0]).toBe('controller');
    expect(args.filter((a) => a.startsWith('--') && !documented.has(a))).toEqual([]);
  });

  it('passes class parameters and discovery selectors as JSON equal to the values', () => {
    const args = controllerArgs(renderCase('name-overrides'));
    const values = caseValues('name-overrides');
    expect(JSON.parse(flag(args, '--gateway-class-parameters-refs') as string)).toEqual(
      values.gatewayClassParametersRefs,
    );
    expect(JSON.parse(flag(args, '--discovery-namespace-selectors') as string)).toEqual(
      values.discoveryNamespaceSelectors,
    );
    expect(flag(args, '--controller-name')).toBe('example.com/gw-internal');
    expect(flag(args, '--log-level')).toBe('debug');
    expect(flag(args, '--proxy-image')).toBe('proxies.example.com/gw/proxy:0.1.0-rc.1');
    for (const f of ['--enable-models', '--enable-xbackend', '--enable-inference-extension'])
      expect(flag(args, f)).toBe(true);
  });

  it('serves the fleet UI on loopback by default, and off loopback with the token Secret mounted read-only', () => {
    expect(flag(controllerArgs(renderCase('defaults')), '--admin-address')).toBe('127.0.0.1:9094');
    expect(flag(controllerArgs(renderCase('defaults')), '--admin-token-file')).toBeUndefined();
    const objects = renderCase('ui-token');
    const args = controllerArgs(objects);
    expect(flag(args, '--admin-address')).toBe('0.0.0.0:9094');
    expect(flag(args, '--admin-token-file')).toBe('/var/run/secrets/gw/ui-token/token');
    const spec = podSpec(objects) as unknown as {
      containers: Container[];
      volumes: { name: string; secret?: { secretName: string; items: { key: string; path: string }[] } }[];
    };
    const controller = spec.containers.find((c) => c.name === 'controller')!;
    expect(controller.volumeMounts).toContainEqual({
      name: 'ui-token',
      mountPath: '/var/run/secrets/gw/ui-token',
      readOnly: true,
    });
    expect(controller.volumeMounts?.map((m) => m.name)).toContain('scratch');
    expect(controller.ports).toContainEqual({ name: 'ui', containerPort: 9094, protocol: 'TCP' });
    expect(spec.volumes.find((v) => v.name === 'ui-token')?.secret).toEqual({
      secretName: 'gw-ui-token',
      items: [{ key: 'token', path: 'token' }],
    });
  });

  it('leaves optional flags out at the defaults, so the controller defaults apply', () => {
    const args = controllerArgs(renderCase('defaults'));
    for (const f of [
      '--gateway-class-parameters-refs',
      '--discovery-namespace-selectors',
      '--gateway-namespaces',
      '--enable-models',
      '--istio-auto-enabled',
    ]) {
      expect(flag(args, f), f).toBeUndefined();
    }
    expect(flag(args, '--xds-mode')).toBe('tls');
    expect(flag(args, '--proxy-image')).toBe('ghcr.io/gw-dev/proxy:0.1.0');
    expect(flag(args, '--leader-election-namespace')).toBe('gw-system');
  });

  it('maps xds mode, ports, gateway namespaces and istio settings to their flags', () => {
    expect(flag(controllerArgs(renderCase('xds-plaintext')), '--xds-mode')).toBe('plaintext');
    const ports = controllerArgs(renderCase('service-fields'));
    expect([flag(ports, '--xds-port'), flag(ports, '--health-port'), flag(ports, '--metrics-port')]).toEqual([
      '19978',
      '19093',
      '19092',
    ]);
    expect(flag(controllerArgs(renderCase('rbac-gateway-namespaces')), '--gateway-namespaces')).toBe('agents,tools');
    const istio = controllerArgs(renderCase('istio-settings'));
    expect(flag(istio, '--istio-ca-address')).toBe('istiod.istio-system.svc:15012');
    expect(flag(controllerArgs(renderCase('istio-istiod')), '--istio-revision')).toBe('1-27');
    // istio.enabled grants RBAC only: no flag says it, on or off.
    expect(flag(istio, '--istio-enabled')).toBeUndefined();
    expect(flag(controllerArgs(renderCase('istio-off')), '--istio-enabled')).toBeUndefined();
    expect(flag(controllerArgs(renderCase('istio-auto')), '--istio-auto-enabled')).toBe(true);
  });

  it('tells the controller its Service and a per-release name when the release is not named gw', () => {
    const render = (release: string, namespace: string) => {
      const r = helm(['template', release, chartDir, '--namespace', namespace]);
      if (r.status !== 0) throw new Error(r.stderr);
      return parseManifest(r.stdout);
    };
    const edge = render('edge', 'agents');
    const args = controllerArgs(edge);
    expect(findObject(edge, 'Service').metadata.name).toBe('edge-gw');
    expect(flag(args, '--service-name')).toBe('edge-gw');
    expect(flag(args, '--service-namespace')).toBe('agents');
    expect(flag(args, '--leader-election-namespace')).toBe('agents');
    expect(ownedNames(flag(args, '--release-name') as string)).toEqual({
      xdsCa: 'edge-gw-agents-xds-ca',
      lease: 'edge-gw-agents-controller',
    });
    // The same release name in another namespace owns other objects (their CA ConfigMaps may share a namespace).
    expect(flag(controllerArgs(render('edge', 'tools')), '--release-name')).toBe('edge-gw-tools');
  });

  it('gives the downward-API variables first and extraEnv scalars as strings', () => {
    const env = podSpec(renderCase('extra-env')).containers[0]!.env!;
    expect(env.slice(0, 3).map((e) => e.name)).toEqual(['POD_NAME', 'POD_NAMESPACE', 'NODE_NAME']);
    expect(env.find((e) => e.name === 'GW_WORKERS')).toEqual({ name: 'GW_WORKERS', value: '4' });
    expect(env.find((e) => e.name === 'GW_TRACE')).toEqual({ name: 'GW_TRACE', value: 'true' });
    expect(env.find((e) => e.name === 'OTEL_EXPORTER_OTLP_HEADERS')).toEqual({
      name: 'OTEL_EXPORTER_OTLP_HEADERS',
      valueFrom: { secretKeyRef: { name: 'otel', key: 'headers' } },
    });
  });
});

describe('controller objects', () => {
  it('writes the same controller name into the GatewayClass as into the flag, with its parametersRef', () => {
    const objects = renderCase('name-overrides');
    const spec = findObject(objects, 'GatewayClass', 'gw-internal').spec as Record<string, unknown>;
    expect(spec.controllerName).toBe(flag(controllerArgs(objects), '--controller-name'));
    expect(spec.parametersRef).toEqual({
      group: 'gw.dev',
      kind: 'GwParameters',
      name: 'internal-defaults',
      namespace: 'gw-system',
    });
  });

  it('keeps revisionHistoryLimit 0 and omits it when null', () => {
    expect(
      (findObject(renderCase('name-overrides'), 'Deployment').spec as Record<string, unknown>).revisionHistoryLimit,
    ).toBe(0);
    expect(findObject(renderCase('defaults'), 'Deployment').spec).not.toHaveProperty('revisionHistoryLimit');
  });

  it('leaves replicas to the HorizontalPodAutoscaler when one is set', () => {
    const objects = renderCase('autoscaling');
    expect(findObject(objects, 'Deployment').spec).not.toHaveProperty('replicas');
    expect((findObject(objects, 'HorizontalPodAutoscaler').spec as Record<string, unknown>).maxReplicas).toBe(5);
    expect(
      renderCase('defaults').filter((o) =>
        ['HorizontalPodAutoscaler', 'VerticalPodAutoscaler', 'PodDisruptionBudget'].includes(o.kind),
      ),
    ).toEqual([]);
  });

  it('renders standard Service fields only when set, keeping an explicit false', () => {
    const set = findObject(renderCase('service-fields'), 'Service').spec as Record<string, unknown>;
    expect(set.allocateLoadBalancerNodePorts).toBe(false);
    expect(set.trafficDistribution).toBe('PreferClose');
    expect(Object.keys(findObject(renderCase('defaults'), 'Service').spec as object).sort()).toEqual([
      'ports',
      'selector',
      'type',
    ]);
  });
});

describe('controller Node.js options', () => {
  const controllerEnv = (objects: K8sObject[]) =>
    podSpec(objects).containers.find((c) => c.name === 'controller')!.env!;
  const withValues = (values: Record<string, unknown>): K8sObject[] => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-node-options-'));
    try {
      const file = join(dir, 'values.yaml');
      writeFileSync(file, JSON.stringify(values));
      const r = helmTemplate([file]);
      expect(r.status, r.stderr).toBe(0);
      return parseManifest(r.stdout);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const chartDefault = (
    parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8')) as { controller: { nodeOptions: string } }
  ).controller.nodeOptions;

  it("runs the controller with the chart's nodeOptions in NODE_OPTIONS by default", () => {
    expect(chartDefault).toContain('--max-semi-space-size=');
    expect(controllerEnv(renderCase('defaults')).filter((e) => e.name === 'NODE_OPTIONS')).toEqual([
      { name: 'NODE_OPTIONS', value: chartDefault },
    ]);
  });

  it("lets extraEnv NODE_OPTIONS replace it, and an empty nodeOptions leave Node's defaults", () => {
    const replaced = controllerEnv(
      withValues({ controller: { extraEnv: { NODE_OPTIONS: '--max-old-space-size=512' } } }),
    );
    expect(replaced.filter((e) => e.name === 'NODE_OPTIONS')).toEqual([
      { name: 'NODE_OPTIONS', value: '--max-old-space-size=512' },
    ]);
    expect(controllerEnv(withValues({ controller: { nodeOptions: '' } })).map((e) => e.name)).not.toContain(
      'NODE_OPTIONS',
    );
  });
});

describe('RBAC', () => {
  const writeVerbs = ['create', 'update', 'patch', 'delete'];
  const rulesOf = (o: K8sObject) => (o.rules ?? []) as PolicyRule[];
  const writesWorkloads = (o: K8sObject) =>
    rulesOf(o).some((r) => r.resources.includes('deployments') && r.verbs.includes('create'));

  it('reads cluster-wide and writes only status and TokenReviews outside the workload roles', () => {
    const objects = renderCase('defaults');
    const read = findObject(objects, 'ClusterRole', 'gw-gw-system');
    for (const rule of rulesOf(read)) {
      const writes = rule.verbs.filter((v) => writeVerbs.includes(v));
      if (writes.length === 0) continue;
      const allowed =
        rule.resources.every((r) => r.endsWith('/status')) ||
        (rule.resources.join() === 'tokenreviews' && rule.verbs.join() === 'create');
      expect(allowed, JSON.stringify(rule)).toBe(true);
    }
    expect(objects.filter((o) => o.kind === 'ClusterRole' && writesWorkloads(o)).map((o) => o.metadata.name)).toEqual([
      'gw-gw-system-workloads',
    ]);
  });

  it('writes proxy workloads only in rbac.gatewayNamespaces when set', () => {
    const objects = renderCase('rbac-gateway-namespaces');
    expect(objects.filter((o) => o.kind.startsWith('Cluster') && writesWorkloads(o))).toEqual([]);
    const roles = objects.filter((o) => o.kind === 'Role' && writesWorkloads(o));
    expect(roles.map((o) => o.metadata.namespace).sort()).toEqual(['agents', 'tools']);
    const bindings = objects.filter((o) => o.kind === 'RoleBinding' && o.metadata.name === 'gw-workloads');
    expect(bindings.map((o) => o.metadata.namespace).sort()).toEqual(['agents', 'tools']);
  });

  it('grants mesh entries only when istio is enabled', () => {
    const meshRules = (objects: K8sObject[]) =>
      objects.flatMap(rulesOf).filter((r) => r.apiGroups.includes('networking.istio.io'));
    expect(meshRules(renderCase('defaults'))).toHaveLength(1);
    expect(meshRules(renderCase('istio-off'))).toEqual([]);
  });

  it('reads GwModels only when agentgatewayModels is enabled', () => {
    const reads = (objects: K8sObject[]) => objects.flatMap(rulesOf).flatMap((r) => r.resources);
    expect(reads(renderCase('defaults'))).not.toContain('gwmodels');
    expect(reads(renderCase('name-overrides'))).toContain('gwmodels');
  });
});

describe('optional objects', () => {
  it('binds a pre-created ServiceAccount without creating it, and renders no Service when disabled', () => {
    const objects = renderCase('existing-account-no-service');
    expect(objects.filter((o) => o.kind === 'ServiceAccount' || o.kind === 'Service')).toEqual([]);
    expect(podSpec(objects)).toMatchObject({ serviceAccountName: 'platform-gw' });
    const subjects = objects.filter((o) => o.kind.endsWith('Binding')).flatMap((o) => o.subjects as { name: string }[]);
    expect(subjects.length).toBeGreaterThan(0);
    expect(subjects.every((s) => s.name === 'platform-gw')).toBe(true);
  });
});
