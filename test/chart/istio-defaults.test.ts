// The chart's istio.* values reach the proxies they are for (issue 38): `helm template` → the controller's
// flags → its deployer options → the proxy pod of a Gateway whose GwParameters turn istio on → the proxy's
// own reader of that environment. A value dropped at any step (as every one of them was) fails here.
import { describe, expect, it } from 'vitest';
import { parseControllerFlags } from '../../src/cli/controller.js';
import { deployerOptionsOf } from '../../src/controller/run-cluster.js';
import { renderGatewayWorkload, type GatewayInput } from '../../src/deployer/render.js';
import { istioSettingsFromEnv } from '../../src/proxy/identity/istio-ca.js';
import { findObject, renderCase, releaseNamespace, type K8sObject } from './helm-run.js';

interface Container {
  name: string;
  args?: string[];
  env?: { name: string; value?: string }[];
}
const containers = (o: K8sObject) =>
  (o.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers;

const gateway: GatewayInput = {
  metadata: { name: 'edge', namespace: 'team-a', uid: 'u-1' },
  spec: { gatewayClassName: 'gw', listeners: [{ name: 'http', port: 8080, protocol: 'HTTP' }] },
};

/**
 * The proxy environment a Gateway with `istio` parameters (none: no GwParameters) of class `className` gets
 * from a controller started as the chart says.
 */
function proxyEnv(
  valuesCase: string,
  istio: Record<string, unknown> | undefined,
  className = 'gw',
  other: Record<string, unknown> = {},
): Record<string, string> {
  const args = containers(findObject(renderCase(valuesCase), 'Deployment')).find((c) => c.name === 'controller')!.args!;
  const cfg = parseControllerFlags(args.slice(1));
  const { objects } = renderGatewayWorkload({
    gateway: { ...gateway, spec: { ...gateway.spec, gatewayClassName: className } },
    ...(istio || Object.keys(other).length > 0
      ? {
          gatewayParameters: {
            metadata: { name: 'p', namespace: 'team-a' },
            spec: { ...other, ...(istio ? { istio } : {}) },
          },
        }
      : {}),
    options: deployerOptionsOf(cfg, releaseNamespace),
  });
  const proxy = containers(objects.find((o) => o.kind === 'Deployment') as unknown as K8sObject).find(
    (c) => c.name === 'proxy',
  )!;
  // The two the kubelet fills from field references, as it would for this pod.
  const env: Record<string, string> = { POD_NAMESPACE: 'team-a', SERVICE_ACCOUNT: 'edge' };
  for (const e of proxy.env ?? []) if (e.value !== undefined) env[e.name] = e.value;
  return env;
}

describe('chart istio values and the proxies of gateways that turn istio on', () => {
  it('gives them istio.caAddress and istio.clusterId, which the proxy dials and sends', () => {
    const settings = istioSettingsFromEnv(proxyEnv('istio-settings', { enabled: true }));
    expect(settings.caAddress).toBe('istiod.istio-system.svc:15012');
    expect(settings.clusterId).toBe('cluster-1');
  });

  it("builds the CA address from istio.namespace and istio.revision (istiod's Service)", () => {
    expect(istioSettingsFromEnv(proxyEnv('istio-istiod', { enabled: true })).caAddress).toBe(
      'istiod-1-27.mesh-system.svc:15012',
    );
  });

  it("gives them Istio's own default, istiod in istio-system, when the chart sets no istio value", () => {
    const env = proxyEnv('defaults', { enabled: true });
    expect(env.GW_ISTIO_ENABLED).toBe('true');
    expect(istioSettingsFromEnv(env).caAddress).toBe('istiod.istio-system.svc:15012');
  });

  it("keeps a gateway's own caAddress and clusterId over the chart's", () => {
    const env = proxyEnv('istio-settings', { enabled: true, caAddress: 'ca.mesh:15012', clusterId: 'own' });
    expect([env.CA_ADDR, env.ISTIO_META_CLUSTER_ID]).toEqual(['ca.mesh:15012', 'own']);
  });

  it('never turns istio on for a gateway whose parameters leave it off', () => {
    const env = proxyEnv('istio-settings', { enabled: false });
    expect([env.GW_ISTIO_ENABLED, env.CA_ADDR, env.ISTIO_META_CLUSTER_ID]).toEqual([undefined, undefined, undefined]);
    // Without istio.autoEnabled, a gateway with no istio parameters has none either.
    expect(proxyEnv('istio-settings', undefined).GW_ISTIO_ENABLED).toBeUndefined();
  });

  it("istio.autoEnabled: on for the chart's class's gateways that leave istio.enabled unset, with the chart's defaults", () => {
    for (const params of [undefined, {}, { trustDomain: 'mesh.example' }]) {
      const env = proxyEnv('istio-auto', params, 'gw-mesh');
      expect(env.GW_ISTIO_ENABLED, JSON.stringify(params)).toBe('true');
      const settings = istioSettingsFromEnv(env);
      expect(settings.caAddress).toBe('istiod.istio-system.svc:15012');
      expect(settings.clusterId).toBe('cluster-1');
    }
    expect(istioSettingsFromEnv(proxyEnv('istio-auto', { trustDomain: 'mesh.example' }, 'gw-mesh')).trustDomain).toBe(
      'mesh.example',
    );
  });

  it('istio.autoEnabled: a gateway opts out with istio.enabled false; gateways of other classes are left alone', () => {
    const out = proxyEnv('istio-auto', { enabled: false }, 'gw-mesh');
    expect([out.GW_ISTIO_ENABLED, out.CA_ADDR]).toEqual([undefined, undefined]);
    const other = proxyEnv('istio-auto', undefined, 'another-class');
    expect([other.GW_ISTIO_ENABLED, other.CA_ADDR]).toEqual([undefined, undefined]);
    // A gateway with a SPIFFE identity of its own keeps it alone (the translator counts it as spiffe too).
    const spire = proxyEnv('istio-auto', undefined, 'gw-mesh', { spiffe: { socketPath: '/run/spire/agent.sock' } });
    expect([spire.GW_ISTIO_ENABLED, spire.CA_ADDR]).toEqual([undefined, undefined]);
  });
});
