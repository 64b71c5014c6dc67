// Where each kind lives in the API: group, version, plural, scope. One table for informers, the
// status writer and the deployer.
import type { Kind } from '../translate/objects/types.js';

export interface Resource {
  kind: string;
  group: string;
  version: string;
  plural: string;
  namespaced: boolean;
}

const r = (kind: string, group: string, version: string, plural: string, namespaced = true): Resource => ({
  kind,
  group,
  version,
  plural,
  namespaced,
});

export const WATCHED: Record<Kind, Resource> = {
  GatewayClass: r('GatewayClass', 'gateway.networking.k8s.io', 'v1', 'gatewayclasses', false),
  Gateway: r('Gateway', 'gateway.networking.k8s.io', 'v1', 'gateways'),
  HTTPRoute: r('HTTPRoute', 'gateway.networking.k8s.io', 'v1', 'httproutes'),
  GRPCRoute: r('GRPCRoute', 'gateway.networking.k8s.io', 'v1', 'grpcroutes'),
  // Standard channel since Gateway API v1.5; clusters without it just lack the CRD (logged, retried).
  ListenerSet: r('ListenerSet', 'gateway.networking.k8s.io', 'v1', 'listenersets'),
  // v1beta1 is served by every Gateway API release that has v1 as well.
  ReferenceGrant: r('ReferenceGrant', 'gateway.networking.k8s.io', 'v1beta1', 'referencegrants'),
  Service: r('Service', '', 'v1', 'services'),
  EndpointSlice: r('EndpointSlice', 'discovery.k8s.io', 'v1', 'endpointslices'),
  Secret: r('Secret', '', 'v1', 'secrets'),
  ConfigMap: r('ConfigMap', '', 'v1', 'configmaps'),
  Namespace: r('Namespace', '', 'v1', 'namespaces', false),
  GwBackend: r('GwBackend', 'gw.dev', 'v1alpha1', 'gwbackends'),
  GwPolicy: r('GwPolicy', 'gw.dev', 'v1alpha1', 'gwpolicies'),
  GwParameters: r('GwParameters', 'gw.dev', 'v1alpha1', 'gwparameters'),
  GwModel: r('GwModel', 'gw.dev', 'v1alpha1', 'gwmodels'),
  // Standard channel since Gateway API v1.4; older releases serve v1alpha3 (experimental) with the same fields.
  BackendTLSPolicy: r('BackendTLSPolicy', 'gateway.networking.k8s.io', 'v1', 'backendtlspolicies'),
  // Watched only with --enable-inference-extension (GwModel custom.backendRef to an InferencePool).
  InferencePool: r('InferencePool', 'inference.networking.k8s.io', 'v1', 'inferencepools'),
  Pod: r('Pod', '', 'v1', 'pods'),
};

/** Older places a kind may be served from, tried when the first answers 404. */
export const ALTERNATIVES: Partial<Record<Kind, Resource[]>> = {
  ListenerSet: [r('XListenerSet', 'gateway.networking.x-k8s.io', 'v1alpha1', 'xlistenersets')],
  BackendTLSPolicy: [r('BackendTLSPolicy', 'gateway.networking.k8s.io', 'v1alpha3', 'backendtlspolicies')],
};

/** Kinds the deployer renders, by apiVersion/kind. */
export const DEPLOYED: Resource[] = [
  r('ServiceAccount', '', 'v1', 'serviceaccounts'),
  r('ConfigMap', '', 'v1', 'configmaps'),
  r('Service', '', 'v1', 'services'),
  r('Secret', '', 'v1', 'secrets'),
  r('Deployment', 'apps', 'v1', 'deployments'),
  r('DaemonSet', 'apps', 'v1', 'daemonsets'),
  r('PodDisruptionBudget', 'policy', 'v1', 'poddisruptionbudgets'),
  r('HorizontalPodAutoscaler', 'autoscaling', 'v2', 'horizontalpodautoscalers'),
];

export function apiVersionOf(res: Resource): string {
  return res.group ? `${res.group}/${res.version}` : res.version;
}

export function resourceFor(apiVersion: string, kind: string): Resource | undefined {
  return DEPLOYED.find((d) => d.kind === kind && apiVersionOf(d) === apiVersion);
}

/** `/api/v1/namespaces/ns/services[/name][/sub]`, or the cluster-wide list path without a namespace. */
export function resourcePath(res: Resource, namespace?: string, name?: string, sub?: string): string {
  const base = res.group ? `/apis/${res.group}/${res.version}` : `/api/${res.version}`;
  const ns = res.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${ns}/${res.plural}${name ? `/${encodeURIComponent(name)}` : ''}${sub ? `/${sub}` : ''}`;
}
