// The Gateway API kinds Gw reads, checked as the API server admits them: the published CRD schemas (structure,
// defaults, CEL rules) of the release the e2e cluster installs, generated into gen/gateway-api/ by
// `make gateway-api-schemas` (scripts/gen-gateway-api-schemas.ts), never written by hand.
import backendTlsPolicies from './gen/gateway-api/backendtlspolicies.json' with { type: 'json' };
import gatewayClasses from './gen/gateway-api/gatewayclasses.json' with { type: 'json' };
import gateways from './gen/gateway-api/gateways.json' with { type: 'json' };
import grpcRoutes from './gen/gateway-api/grpcroutes.json' with { type: 'json' };
import httpRoutes from './gen/gateway-api/httproutes.json' with { type: 'json' };
import listenerSets from './gen/gateway-api/listenersets.json' with { type: 'json' };
import referenceGrants from './gen/gateway-api/referencegrants.json' with { type: 'json' };
import stamp from './gen/gateway-api/stamp.json' with { type: 'json' };
import type { TSchema } from './schema-kit.js';
import { schemaChecker, type SchemaChecker } from './schema-check.js';

export const GATEWAY_API_GROUP = 'gateway.networking.k8s.io';
/** The release the schemas come from (`v1.5.1`). */
export const GATEWAY_API_RELEASE: string = stamp.version;

interface CrdSchemas {
  kind: string;
  scope: 'Namespaced' | 'Cluster';
  versions: { name: string; served: boolean; openAPIV3Schema: { properties: { spec: unknown } } }[];
}

const CRDS = [
  gatewayClasses,
  gateways,
  httpRoutes,
  grpcRoutes,
  listenerSets,
  referenceGrants,
  backendTlsPolicies,
] as unknown as CrdSchemas[];

/** The Gateway API kinds Gw reads, each with its published schema here. */
export const GATEWAY_API_KINDS: readonly string[] = CRDS.map((c) => c.kind);

export type GatewayApiVersion =
  { ok: true; kind: string; version: string; check: SchemaChecker['check'] } | { ok: false; message: string };

const checkers = new Map<string, SchemaChecker>();

/**
 * The spec checker for a `gateway.networking.k8s.io/<version>` object of `kind`, or why there is none; undefined
 * for a kind the release has no schema for here (Gw does not read it). Built on first use: seconds of ajv code
 * generation for HTTPRoute, which only the controller's warm-up and `gw validate` should pay.
 */
export function gatewayApiSchema(kind: string, version: string): GatewayApiVersion | undefined {
  const crd = CRDS.find((c) => c.kind === kind);
  if (!crd) return undefined;
  const v = crd.versions.find((x) => x.name === version);
  if (!v) {
    const known = crd.versions.filter((x) => x.served).map((x) => `${GATEWAY_API_GROUP}/${x.name}`);
    return {
      ok: false,
      message: `must be ${known.join(' or ')} (the versions of ${kind} in Gateway API ${GATEWAY_API_RELEASE}), got "${GATEWAY_API_GROUP}/${version}"`,
    };
  }
  const key = `${kind}/${version}`;
  let c = checkers.get(key);
  if (!c) checkers.set(key, (c = schemaChecker(v.openAPIV3Schema.properties.spec as TSchema)));
  return { ok: true, kind, version, check: c.check };
}

/** Whether `kind` is a cluster-scoped Gateway API kind (GatewayClass), named without a namespace. */
export function gatewayApiClusterScoped(kind: string): boolean {
  return CRDS.some((c) => c.kind === kind && c.scope === 'Cluster');
}

/** Builds the checker of every kind's served versions now, so no watch event pays for it. */
export function warmUpGatewayApiValidators(): void {
  for (const crd of CRDS)
    for (const v of crd.versions.filter((x) => x.served)) {
      const s = gatewayApiSchema(crd.kind, v.name);
      if (s?.ok) s.check({}, ['spec']);
    }
}
