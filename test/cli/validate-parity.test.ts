// `gw validate` and the controller agree on every Gw object (issue 16) and on the Gateway API kinds Gw reads
// (issue 32): the same checks run on both sides
// (validateObject, then a GwPolicy's extAuth expressions), and here each problem `gw validate` prints is
// found in a False condition of the status the real translator writes for the same object, while an object
// `gw validate` passes gets no Invalid condition from the controller.
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { validateText } from '../../src/cli/validate.js';
import { createStore, putObject } from '../../src/translate/objects/store.js';
import { translateAll } from '../../src/translate/state.js';
import type { Kind, KubeObject } from '../../src/translate/objects/types.js';

const CLASS = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: gw, generation: 1}
spec: {controllerName: gw.dev/gateway-controller}`;

const GATEWAY = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: default, generation: 1}
spec: {gatewayClassName: gw, listeners: [{name: http, port: 8080, protocol: HTTP}]}`;

const policy = (spec: string) => `apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: obj, namespace: default, generation: 1}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
${spec}`;

const route = (parents: string, backends: string) => `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: obj, namespace: default, generation: 1}
spec:
  ${parents}
  rules: [{${backends}: [{group: gw.dev, kind: GwBackend, name: b}]}]`;

const cases: { name: string; yaml: string; invalid: boolean }[] = [
  {
    name: 'an authorization rule naming an unknown variable',
    yaml: policy("  traffic: {authorization: {action: Allow, policy: {matchExpressions: ['foo.bar == 1']}}}"),
    invalid: true,
  },
  {
    name: 'an extAuth header expression over a variable extAuth does not have',
    yaml: policy("  traffic: {extAuth: {url: 'http://a:1', http: {addRequestHeaders: {x-tool: 'mcp.tool.name'}}}}"),
    invalid: true,
  },
  {
    name: 'a global rate-limit descriptor entry over a variable the stage does not bind',
    yaml: policy(
      "  traffic: {rateLimit: {global: {url: 'grpc://a:1', domain: d, descriptors: [{entries: [{name: k, expression: 'mcp.tool'}]}]}}}",
    ),
    invalid: true,
  },
  {
    name: 'inheritance without traffic settings',
    yaml: policy('  strategy: {inheritance: Override}\n  frontend: {tcp: {maxConnections: 3}}'),
    invalid: true,
  },
  {
    name: 'a GwBackend with two backend kinds',
    yaml: `apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: obj, namespace: default, generation: 1}
spec: {static: {host: a.example, port: 80}, dynamicForwardProxy: {}}`,
    invalid: true,
  },
  { name: 'a valid policy', yaml: policy("  traffic: {cors: {allowOrigins: ['*']}}"), invalid: false },
  // Gateway API kinds: the published schema on both sides, and the route's status even when its parentRefs
  // are misspelled (issue 32).
  {
    name: 'an HTTPRoute with backendRef for backendRefs',
    yaml: route('parentRefs: [{name: web}]', 'backendRef'),
    invalid: true,
  },
  {
    name: 'an HTTPRoute with parentRef for parentRefs',
    yaml: route('parentRef: {name: web}', 'backendRefs'),
    invalid: true,
  },
  {
    name: 'a Gateway with a listener without port',
    yaml: `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: obj, namespace: default, generation: 1}
spec: {gatewayClassName: gw, listeners: [{name: http, protocol: HTTP}]}`,
    invalid: true,
  },
  { name: 'a valid HTTPRoute', yaml: route('parentRefs: [{name: web}]', 'backendRefs'), invalid: false },
];

/** Messages of the False conditions anywhere in an object's status. */
function falseConditions(status: unknown): string[] {
  if (Array.isArray(status)) return status.flatMap(falseConditions);
  if (!status || typeof status !== 'object') return [];
  const o = status as Record<string, unknown>;
  const own = o.type === 'Accepted' && o.status === 'False' ? [String(o.message)] : [];
  return [...own, ...Object.values(o).flatMap(falseConditions)];
}

describe('gw validate and the controller agree', () => {
  for (const c of cases)
    it(c.name, () => {
      const printed = validateText(c.yaml, 'obj.yaml').problems;
      expect(printed.length > 0).toBe(c.invalid);
      const store = createStore();
      putObject(store, 'GatewayClass', parse(CLASS) as KubeObject, 'test');
      putObject(store, 'Gateway', parse(GATEWAY) as KubeObject, 'test');
      const obj = parse(c.yaml) as KubeObject;
      putObject(store, obj.kind as Kind, obj, 'test');
      const state = translateAll(store, { controllerName: 'gw.dev/gateway-controller', now: '2026-01-01T00:00:00Z' });
      const refused = falseConditions(state.statuses.get(`${obj.kind}/default/obj`));
      if (!c.invalid) expect(refused).toEqual([]);
      for (const p of printed) expect(refused.join('\n')).toContain(`${p.path}: ${p.message}`);
    });
});
