// Gateway API and core kinds have no TypeScript types from src/api (Gateway API objects are checked against the
// published CRD schemas, src/api/gateway-api.ts, but invalid ones still get a status), so the fields the
// translator reads are described here by hand, only those, and each object is narrowed to them once
// (narrow.ts): a field that has another type than the one read reads as unset, never as a crash.
// Listener fields are read in listeners/, not here.
import { closestName } from '../../problem.js';
import { list, memoized, number, object, optional, raw, record, string, strings, type Narrow } from './narrow.js';
import { rec } from './read.js';
import type { StoredObject } from './types.js';

/** Gateway API ParentReference (a route's or a ListenerSet's parent, a GwModel's parentRef). */
export interface ParentReference {
  group?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  sectionName?: string;
  port?: number;
  /** sectionName and port as written: status echoes the parentRef as the user wrote it. */
  written: { sectionName?: unknown; port?: unknown };
}

/** A reference to an object by group, kind and name (LocalObjectReference and friends). */
export interface ObjectReference {
  group?: string;
  kind?: string;
  name?: string;
}

export interface BackendReference extends ObjectReference {
  namespace?: string;
  port?: number;
  weight?: number;
}

/** HTTPHeaderMatch, HTTPQueryParamMatch and GRPCHeaderMatch. */
export interface ValueMatch {
  type?: string;
  name?: string;
  value?: string;
}

/** An HTTPRouteMatch or a GRPCRouteMatch: the two name different things `method`. */
export interface RouteMatch {
  path?: { type?: string; value?: string };
  /** HTTPRoute: the request method. */
  method?: string;
  /** GRPCRoute: `method` names the service and method. */
  grpcMethod?: { type?: string; service?: string; method?: string };
  headers?: readonly ValueMatch[];
  queryParams?: readonly ValueMatch[];
}

export interface HeaderModifier {
  set?: readonly { name?: string; value?: string }[];
  add?: readonly { name?: string; value?: string }[];
  remove?: readonly string[];
}

export interface PathModifier {
  type?: string;
  replaceFullPath?: string;
  replacePrefixMatch?: string;
}

/** HTTPRouteFilter / GRPCRouteFilter: the filter kinds the proxy runs (validate.ts refuses the others). */
export interface RouteFilter {
  type?: string;
  requestHeaderModifier?: HeaderModifier;
  responseHeaderModifier?: HeaderModifier;
  requestRedirect?: { scheme?: string; hostname?: string; path?: PathModifier; port?: number; statusCode?: number };
  urlRewrite?: { hostname?: string; path?: PathModifier };
}

export interface RouteRule {
  name?: string;
  matches?: readonly RouteMatch[];
  filters?: readonly RouteFilter[];
  backendRefs?: readonly BackendReference[];
  timeouts?: { request?: string; backendRequest?: string };
}

/** HTTPRoute and GRPCRoute. */
export interface RouteSpec {
  parentRefs?: readonly ParentReference[];
  hostnames?: readonly string[];
  rules?: readonly RouteRule[];
}

export interface GatewaySpec {
  gatewayClassName?: string;
  infrastructure?: { parametersRef?: { kind?: string; name?: string } };
  listeners?: readonly { name?: string }[];
}

export interface ListenerSetSpec {
  parentRef?: ParentReference;
  listeners?: readonly { name?: string }[];
}

export interface GatewayClassSpec {
  controllerName?: string;
  parametersRef?: { kind?: string; namespace?: string; name?: string };
}

export interface ReferenceGrantSpec {
  from?: readonly { group?: string; kind?: string; namespace?: string }[];
  to?: readonly ObjectReference[];
}

export interface ServicePort {
  name?: string;
  port?: number;
  appProtocol?: string;
  /** The port as written: a policy's sectionName names a Service port by its text. */
  written: { port?: unknown };
}

export interface ServiceSpec {
  ports?: readonly ServicePort[];
}

export interface BackendTlsPolicyTarget extends ObjectReference {
  sectionName?: string;
}

export interface BackendTlsPolicySpec {
  targetRefs?: readonly BackendTlsPolicyTarget[];
  validation?: {
    hostname?: string;
    subjectAltNames?: readonly { type?: string; hostname?: string; uri?: string }[];
    caCertificateRefs?: readonly ObjectReference[];
  };
}

/** A listener's `allowedRoutes` (listeners/ keeps it as written). */
export interface AllowedRoutes {
  namespaces?: { from?: string; selector?: Record<string, unknown> };
}

const written = object<ParentReference['written']>({ sectionName: raw, port: raw });
const reference = object<Omit<ParentReference, 'written'>>({
  group: string,
  kind: string,
  namespace: string,
  name: string,
  sectionName: string,
  port: number,
});
export const parentReference: Narrow<ParentReference> = (v) => ({ ...reference(v), written: written(v) });

const objectReference = object<ObjectReference>({ group: string, kind: string, name: string });
const valueMatch = object<ValueMatch>({ type: string, name: string, value: string });
const header = object<{ name?: string; value?: string }>({ name: string, value: string });
const headerModifier = optional<HeaderModifier>({ set: list(header), add: list(header), remove: strings });
const pathModifier = optional<PathModifier>({
  type: string,
  replaceFullPath: string,
  replacePrefixMatch: string,
});

const httpMatch = object<Omit<RouteMatch, 'grpcMethod'>>({
  path: optional({ type: string, value: string }),
  method: string,
  headers: list(valueMatch),
  queryParams: list(valueMatch),
});
const routeMatch: Narrow<RouteMatch> = (v) => ({ ...httpMatch(v), ...grpcMethodOf(v) });
const grpcMethod = optional<NonNullable<RouteMatch['grpcMethod']>>({ type: string, service: string, method: string });
function grpcMethodOf(v: unknown): Pick<RouteMatch, 'grpcMethod'> {
  const m = grpcMethod(rec(v)?.method);
  return m ? { grpcMethod: m } : {};
}

const routeFilter = object<RouteFilter>({
  type: string,
  requestHeaderModifier: headerModifier,
  responseHeaderModifier: headerModifier,
  requestRedirect: optional({ scheme: string, hostname: string, path: pathModifier, port: number, statusCode: number }),
  urlRewrite: optional({ hostname: string, path: pathModifier }),
});

const routeRule = object<RouteRule>({
  name: string,
  matches: list(routeMatch),
  filters: list(routeFilter),
  backendRefs: list(
    object<BackendReference>({
      group: string,
      kind: string,
      name: string,
      namespace: string,
      port: number,
      weight: number,
    }),
  ),
  timeouts: optional({ request: string, backendRequest: string }),
});

const named = list(object<{ name?: string }>({ name: string }));

const portFields = object<Omit<ServicePort, 'written'>>({ name: string, port: number, appProtocol: string });
const writtenPort = object<ServicePort['written']>({ port: raw });
const servicePort: Narrow<ServicePort> = (v) => ({ ...portFields(v), written: writtenPort(v) });

const narrowers = {
  route: memoized(object<RouteSpec>({ parentRefs: list(parentReference), hostnames: strings, rules: list(routeRule) })),
  gateway: memoized(
    object<GatewaySpec>({
      gatewayClassName: string,
      infrastructure: optional({ parametersRef: optional({ kind: string, name: string }) }),
      listeners: named,
    }),
  ),
  listenerSet: memoized(
    object<ListenerSetSpec>({ parentRef: (v) => (rec(v) ? parentReference(v) : undefined), listeners: named }),
  ),
  gatewayClass: memoized(
    object<GatewayClassSpec>({
      controllerName: string,
      parametersRef: optional({ kind: string, namespace: string, name: string }),
    }),
  ),
  referenceGrant: memoized(
    object<ReferenceGrantSpec>({
      from: list(object({ group: string, kind: string, namespace: string })),
      to: list(objectReference),
    }),
  ),
  service: memoized(object<ServiceSpec>({ ports: list(servicePort) })),
  backendTlsPolicy: memoized(
    object<BackendTlsPolicySpec>({
      targetRefs: list(
        object<BackendTlsPolicyTarget>({ group: string, kind: string, name: string, sectionName: string }),
      ),
      validation: optional({
        hostname: string,
        subjectAltNames: list(object({ type: string, hostname: string, uri: string })),
        caCertificateRefs: list(objectReference),
      }),
    }),
  ),
};

const allowed = memoized(object<AllowedRoutes>({ namespaces: optional({ from: string, selector: record }) }));
/** A listener's `allowedRoutes` as ListenerInfo carries it. */
export const allowedRoutes = (v: unknown): AllowedRoutes => allowed(v);

/** An HTTPRoute's or GRPCRoute's spec. */
export const routeSpec = (e: StoredObject): RouteSpec => narrowers.route(e.obj.spec);
export const gatewaySpec = (e: StoredObject): GatewaySpec => narrowers.gateway(e.obj.spec);

/**
 * The parents an HTTPRoute's or GRPCRoute's status goes to: its parentRefs. A route that leaves them unreadable
 * (a misspelled key such as `parentRef`, or one reference where the list belongs) is invalid and attaches
 * nowhere, but the parents it meant are still told why (Accepted=False) instead of the route getting no status.
 */
export function routeParents(e: StoredObject): readonly ParentReference[] {
  const refs = routeSpec(e).parentRefs;
  return refs !== undefined || e.problems.length === 0 ? (refs ?? []) : meantParents(e.obj.spec);
}

const meantParents = memoized((spec: unknown): ParentReference[] => {
  for (const [k, v] of Object.entries(rec(spec) ?? {})) {
    if (k !== 'parentRefs' && closestName(k, ['parentRefs', 'hostnames', 'rules']) !== 'parentRefs') continue;
    return (Array.isArray(v) ? v : [v]).filter((x) => rec(x) !== undefined).map(parentReference);
  }
  return [];
});
export const listenerSetSpec = (e: StoredObject): ListenerSetSpec => narrowers.listenerSet(e.obj.spec);
export const gatewayClassSpec = (e: StoredObject): GatewayClassSpec => narrowers.gatewayClass(e.obj.spec);
export const referenceGrantSpec = (e: StoredObject): ReferenceGrantSpec => narrowers.referenceGrant(e.obj.spec);
export const serviceSpec = (e: StoredObject): ServiceSpec => narrowers.service(e.obj.spec);
export const backendTlsPolicySpec = (e: StoredObject): BackendTlsPolicySpec => narrowers.backendTlsPolicy(e.obj.spec);

const data = memoized((v: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(rec(v) ?? {})) out[k] = typeof x === 'string' ? x : '';
  return out;
});

/** A Secret's or ConfigMap's `data`: every value as text, one that is not a string as empty text. */
export const dataOf = (e: StoredObject): Record<string, string> => data(e.obj.data);
