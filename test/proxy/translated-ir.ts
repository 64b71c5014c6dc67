// Manifests → the IR snapshot of one Gateway, as the controller would ship it, with every bind moved to
// 127.0.0.1:0 so a test can serve it. For tests that prove translation and proxy agree on the wire, and
// for the benchmarks (no test-runner imports here).
import { parseManifests } from '../../src/controller/local/manifests.js';
import { normalizeSnapshot } from '../../src/ir/load.js';
import type { Snapshot, SnapshotInput } from '../../src/ir/types.js';
import type { TranslateOptions } from '../../src/translate/objects/context.js';
import { snapshots, translateAll } from '../../src/translate/state.js';
import { createStore, putObject } from '../../src/translate/objects/store.js';

export function translatedIr(
  manifests: string,
  gateway = 'default/web',
  options: Partial<TranslateOptions> = {},
  /** Objects that may be invalid (issue 31: how an invalid object is served); else any problem throws. */
  invalid: readonly string[] = [],
): Snapshot {
  const store = createStore();
  const parsed = parseManifests(manifests, 'test.yaml');
  const problems = [
    ...parsed.problems,
    ...parsed.objects.flatMap(({ kind, obj }) => putObject(store, kind, obj, 'test.yaml').problems),
  ];
  const unexpected = problems.filter((p) => !invalid.includes(p.object ?? ''));
  if (unexpected.length > 0) throw new Error(`the manifests are not valid: ${JSON.stringify(unexpected)}`);
  const snapshot = snapshots(
    translateAll(store, { controllerName: 'gw.dev/gateway-controller', now: '2026-01-01T00:00:00Z', ...options }),
  ).get(gateway);
  if (!snapshot) throw new Error(`no snapshot for Gateway ${gateway}`);
  const ir = normalizeSnapshot(snapshot as unknown as SnapshotInput);
  for (const r of ir.resources) if (r.bind) Object.assign(r.bind, { port: 0, address: '127.0.0.1' });
  return ir;
}

/** GatewayClass `gw`, Gateway default/web (HTTP 8080) and GwBackend default/`backend` → 127.0.0.1:`port`; append routes. */
export function gatewayWithStaticBackend(port: number, backend = 'shop'): string {
  return `${GATEWAY_WEB}---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${backend}, namespace: default}
spec:
  static: {host: 127.0.0.1, port: ${port}}
`;
}

/** GatewayClass `gw` and Gateway default/web with one HTTP listener on 8080; append backends and routes. */
export const GATEWAY_WEB = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: gw}
spec: {controllerName: gw.dev/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: default}
spec:
  gatewayClassName: gw
  listeners: [{name: http, port: 8080, protocol: HTTP}]
`;

/** A GwPolicy `name` on HTTPRoute `name` setting `backend` (flow YAML), e.g. `{tls: {...}, http: {version: HTTP2}}`. */
export function routeBackendPolicy(name: string, backend: string): string {
  return routePolicy(name, 'backend', backend);
}

/** A GwPolicy `name` on HTTPRoute `route` (default `name`) setting `traffic` (flow YAML, or a block under it). */
export function routeTrafficPolicy(name: string, traffic: string, route = name): string {
  return routePolicy(name, 'traffic', traffic, route);
}

function routePolicy(name: string, section: string, value: string, route = name): string {
  return `---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: ${name}, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: ${route}}]
  ${section}: ${value}
`;
}

/** A backendRef to GwBackend `name` (flow YAML). */
export const gwBackendRef = (name: string): string => `{group: gw.dev, kind: GwBackend, name: ${name}}`;

/**
 * An HTTPRoute `name` on Gateway web with one rule: PathPrefix `prefix` (default `/name`) to `backendRefs` (flow
 * YAML items, default GwBackend `name`); `ruleName` names the rule, `rule` adds fields to it (lines indented by four).
 */
export function httpRoute(
  name: string,
  o: { prefix?: string; backendRefs?: string; ruleName?: string; rule?: string } = {},
): string {
  return `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ${name}, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - ${o.ruleName ? `name: ${o.ruleName}\n    ` : ''}matches: [{path: {type: PathPrefix, value: ${o.prefix ?? `/${name}`}}}]
    backendRefs: [${o.backendRefs ?? gwBackendRef(name)}]
${o.rule ?? ''}`;
}
