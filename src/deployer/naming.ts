// Names, labels and owner references shared by every object rendered for one Gateway.
import { createHash } from 'node:crypto';
import type { JsonObject } from './json.js';

export interface GatewayInput {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; uid: string };
  spec: {
    gatewayClassName: string;
    listeners: ReadonlyArray<{ name: string; port: number; protocol: string }>;
    infrastructure?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  };
}

/** The label the deployer selects pods by and prunes by. */
export const GATEWAY_LABEL = 'gw.dev/gateway';
export const MANAGED_BY = 'gw-controller';

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** `<gateway>` as a DNS label (63 chars max): long names keep a prefix and a hash so they stay unique. */
export function workloadName(gateway: GatewayInput, suffix = ''): string {
  const name = gateway.metadata.name + suffix;
  if (name.length <= 63) return name;
  return `${name.slice(0, 52).replace(/[-.]+$/, '')}-${sha256(name).slice(0, 10)}`;
}

/** Label values are at most 63 chars; a long gateway name is shortened the same way as object names. */
export function selectorLabels(gateway: GatewayInput): Record<string, string> {
  return { [GATEWAY_LABEL]: workloadName(gateway) };
}

/** A label value (63 chars max) for any name: long ones keep a prefix and a hash, as object names do. */
function labelValue(name: string): string {
  return name.length <= 63 ? name : `${name.slice(0, 52).replace(/[-.]+$/, '')}-${sha256(name).slice(0, 10)}`;
}

/**
 * Also the Gateway API's own labels for generated resources (GEP-1762), which the chart's PodMonitor
 * selects proxies by; none of them is in the (immutable) workload selector.
 */
export function objectLabels(gateway: GatewayInput): Record<string, string> {
  return {
    ...(gateway.spec.infrastructure?.labels ?? {}),
    'app.kubernetes.io/name': 'gw-proxy',
    'app.kubernetes.io/instance': workloadName(gateway),
    'app.kubernetes.io/managed-by': MANAGED_BY,
    'gateway.networking.k8s.io/gateway-name': labelValue(gateway.metadata.name),
    'gateway.networking.k8s.io/gateway-class-name': labelValue(gateway.spec.gatewayClassName),
    ...selectorLabels(gateway),
  };
}

export function objectMeta(gateway: GatewayInput, name: string): JsonObject {
  const meta: JsonObject = {
    name,
    namespace: gateway.metadata.namespace,
    labels: objectLabels(gateway),
    ownerReferences: [
      {
        apiVersion: gateway.apiVersion ?? 'gateway.networking.k8s.io/v1',
        kind: gateway.kind ?? 'Gateway',
        name: gateway.metadata.name,
        uid: gateway.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  };
  const annotations = gateway.spec.infrastructure?.annotations;
  if (annotations && Object.keys(annotations).length > 0) meta.annotations = { ...annotations };
  return meta;
}
