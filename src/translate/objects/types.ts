// Plain shapes of the objects the store holds. A spec stays `unknown` here: a valid Gw object's spec is read as
// its src/api schema type (gw-objects.ts), any other spec through a narrowed view (gateway-api.ts, gw-unchecked.ts).
import type { Problem } from '../../problem.js';

export const KINDS = [
  'GatewayClass',
  'Gateway',
  'HTTPRoute',
  'GRPCRoute',
  'ListenerSet',
  'ReferenceGrant',
  'Service',
  'EndpointSlice',
  'Secret',
  'ConfigMap',
  'Namespace',
  'GwBackend',
  'GwPolicy',
  'GwParameters',
  'GwModel',
  'BackendTLSPolicy',
  // Gateway API Inference Extension (--enable-inference-extension): a pool and the Pods its selector picks.
  'InferencePool',
  'Pod',
] as const;
export type Kind = (typeof KINDS)[number];

const CLUSTER_SCOPED: ReadonlySet<Kind> = new Set<Kind>(['GatewayClass', 'Namespace']);

/** API groups as users write them in references; `''` is the core group. */
export const GROUP = {
  gateway: 'gateway.networking.k8s.io',
  listenerSet: 'gateway.networking.x-k8s.io',
  gw: 'gw.dev',
  core: '',
} as const;

export interface ObjectMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  creationTimestamp?: string;
  generation?: number;
  uid?: string;
}

/** Any Kubernetes object; `spec` and `data` are read through gw-objects.ts or a narrowed view. */
export interface KubeObject {
  apiVersion?: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: unknown;
  data?: Record<string, string>;
  status?: unknown;
  [field: string]: unknown;
}

/** An object in the store together with where it came from and what validation found. */
export interface StoredObject {
  kind: Kind;
  /** `ns/name`, or `name` for cluster-scoped kinds. */
  key: string;
  obj: KubeObject;
  /** File name, or `cluster`. */
  source: string;
  /** Empty when the object is valid; invalid objects are reported and skipped by translation. */
  problems: Problem[];
  /** Hash of everything translation may read (not status, resourceVersion or managedFields). */
  fingerprint: string;
}

export function isKind(kind: string): kind is Kind {
  return (KINDS as readonly string[]).includes(kind);
}

export function isClusterScoped(kind: Kind): boolean {
  return CLUSTER_SCOPED.has(kind);
}

export function nameKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** `Kind/ns/name`: the one key every map, dependency set and status file uses. */
export function objectKey(kind: Kind, key: string): string {
  return `${kind}/${key}`;
}

export function splitObjectKey(k: string): { kind: Kind; key: string } | undefined {
  const i = k.indexOf('/');
  if (i < 0) return undefined;
  const kind = k.slice(0, i);
  return isKind(kind) ? { kind, key: k.slice(i + 1) } : undefined;
}

/** `Kind ns/name`, as problems and status messages name objects. */
export function displayName(kind: string, key: string): string {
  return `${kind} ${key}`;
}

export function namespaceOf(key: string): string {
  const i = key.indexOf('/');
  return i < 0 ? '' : key.slice(0, i);
}
