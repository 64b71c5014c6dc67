// The wire protocol of proto/gw/xds/v1/xds.proto, loaded at run time with proto-loader, plus the
// TypeScript shapes of its messages as proto-loader decodes them (camelCase, defaults filled in).
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

export interface NodeMessage {
  gatewayNamespace: string;
  gatewayName: string;
  podName: string;
  buildVersion: string;
}

export interface ResourceError {
  name: string;
  message: string;
}

/** A resource a proxy does not serve, as the server reports it: refused in a response, or dropped later. */
export interface ResourceRefusal extends ResourceError {
  /** Served before, then left out because a response left it dangling (the request's `dropped`). */
  dropped?: boolean;
}

export interface DeltaRequest {
  node?: NodeMessage | null;
  initialResourceVersions?: Record<string, string>;
  responseNonce?: string;
  errors?: ResourceError[];
  dropped?: ResourceError[];
}

export interface WireResource {
  name: string;
  type: string;
  version: string;
  body: Uint8Array;
}

export interface DeltaResponse {
  resources: WireResource[];
  removedResources: string[];
  nonce: string;
  systemVersionInfo: string;
}

export const SERVICE_NAME = 'gw.xds.v1.AggregatedDiscovery';
export const METHOD_NAME = 'DeltaResources';
/** Metadata key of the proxy's bearer token (a projected ServiceAccount token in a cluster). */
export const AUTHORIZATION_HEADER = 'authorization';

// proto/ sits two levels above this file both in src/xds and in dist/xds.
export const PROTO_PATH = fileURLToPath(new URL('../../proto/gw/xds/v1/xds.proto', import.meta.url));

let cached: grpc.ServiceDefinition | undefined;

export function xdsServiceDefinition(): grpc.ServiceDefinition {
  if (cached) return cached;
  const pkg = protoLoader.loadSync(PROTO_PATH, {
    keepCase: false,
    longs: String,
    enums: String,
    defaults: true,
    arrays: true,
    objects: true,
  });
  const def = pkg[SERVICE_NAME];
  if (!def || !('DeltaResources' in def)) throw new Error(`${PROTO_PATH}: service ${SERVICE_NAME} not found`);
  cached = def as grpc.ServiceDefinition;
  return cached;
}

/** sha256 of the body, hex, first 16 characters: stable across replicas and restarts. */
export function resourceVersion(body: Uint8Array): string {
  return createHash('sha256').update(body).digest('hex').slice(0, 16);
}

/** One hash over every {name, version}, sorted by name: identifies a whole snapshot. */
export function snapshotVersion(versions: ReadonlyMap<string, string>): string {
  const h = createHash('sha256');
  for (const name of [...versions.keys()].sort()) h.update(name).update('\0').update(versions.get(name)!).update('\n');
  return h.digest('hex').slice(0, 16);
}

/** `namespace/name`, the key a SnapshotSource and authorize() use for a gateway. */
export function gatewayKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}
