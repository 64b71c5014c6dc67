// Objects of a burst (one HTTPRoute, one GwPolicy on it, per index) for the burst e2e test and the
// control-plane benchmark, and the text of a gateway's published snapshot to look for them in.
import type { ClusterController } from '../../../../src/controller/cluster.js';
import type { KubeClient } from '../../../../src/controller/kube-client.js';
import { decodeResource } from '../../../../src/ir/load.js';

const GWAPI = '/apis/gateway.networking.k8s.io/v1';
const V1 = 'gateway.networking.k8s.io/v1';

/** Namespace `ns`, a GatewayClass named like it, Gateways `gw-0…` and the Service `echo` the routes use. */
export async function createBurstFixture(
  client: KubeClient,
  ns: string,
  controllerName: string,
  gateways: number,
): Promise<void> {
  await client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
  });
  await client.request('POST', `${GWAPI}/gatewayclasses`, {
    body: { apiVersion: V1, kind: 'GatewayClass', metadata: { name: ns }, spec: { controllerName: controllerName } },
  });
  for (let g = 0; g < gateways; g++)
    await client.request('POST', `${GWAPI}/namespaces/${ns}/gateways`, {
      body: {
        apiVersion: V1,
        kind: 'Gateway',
        metadata: { name: `gw-${g}` },
        spec: { gatewayClassName: ns, listeners: [{ name: 'http', port: 8080, protocol: 'HTTP' }] },
      },
    });
  await client.request('POST', `/api/v1/namespaces/${ns}/services`, {
    body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'echo' }, spec: { ports: [{ port: 80 }] } },
  });
}

export function burstRoute(i: number, gateways: number) {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: `r-${i}` },
    spec: {
      parentRefs: [{ name: `gw-${i % gateways}` }],
      rules: [
        { matches: [{ path: { type: 'PathPrefix', value: `/r-${i}` } }], backendRefs: [{ name: 'echo', port: 80 }] },
      ],
    },
  };
}

export function burstPolicy(i: number) {
  return {
    apiVersion: 'gw.dev/v1alpha1',
    kind: 'GwPolicy',
    metadata: { name: `p-${i}` },
    spec: {
      targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: `r-${i}` }],
      backend: { http: { requestTimeout: `${(i % 50) + 1}s` } },
    },
  };
}

/** Every route and every route's policy is in the published snapshots. */
export function snapshotsHold(
  ctl: ClusterController,
  gateways: string[],
  ns: string,
  routes: number,
  policies: number,
): boolean {
  const text = gateways.map((g) => snapshotText(ctl, g)).join('\n');
  for (let i = 0; i < routes; i++) if (!text.includes(`/r-${i}"`)) return false;
  for (let i = 0; i < policies; i++) if (!text.includes(`GwPolicy ${ns}/p-${i}"`)) return false;
  return true;
}

/** Decoded once per body: the source reuses unchanged bodies, so polling stays cheap on the measured loop. */
const decoded = new WeakMap<object, string>();

export function snapshotText(ctl: ClusterController, gateway: string): string {
  const held = ctl.source.get(gateway);
  if (!held) return '';
  const out: string[] = [];
  for (const r of held.values()) {
    let text = decoded.get(r);
    if (text === undefined) decoded.set(r, (text = JSON.stringify(decodeResource(r.body))));
    out.push(text);
  }
  return out.join('\n');
}
