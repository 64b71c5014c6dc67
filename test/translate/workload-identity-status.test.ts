// A GwPolicy or GwBackend with `certificateSource: SPIFFE` reached through two Gateways, one whose proxy has a
// workload identity (GwParameters `spiffe`) and one without: its status is decided per Gateway (issue 38),
// in effect through the first and refused, naming the field and the Gateway, through the second.
import { describe, expect, it } from 'vitest';
import { applyChange, translateAll } from '../../src/translate/state.js';
import { getObject } from '../../src/translate/objects/store.js';
import { smallStore } from './small-store.js';
import type { Rec } from '../../src/translate/objects/read.js';
import type { KubeObject } from '../../src/translate/objects/types.js';

const options = { controllerName: 'gw.dev/gateway-controller', now: '2026-01-01T00:00:00Z' } as Parameters<
  typeof translateAll
>[1];

const gw = (name: string, params: string): KubeObject => ({
  kind: 'Gateway',
  metadata: { name, namespace: 'ns' },
  spec: {
    gatewayClassName: 'gw',
    infrastructure: { parametersRef: { group: 'gw.dev', kind: 'GwParameters', name: params } },
    listeners: [{ name: 'http', port: 8080, protocol: 'HTTP' }],
  },
});

const params = (name: string, spec: Rec): KubeObject => ({
  apiVersion: 'gw.dev/v1alpha1',
  kind: 'GwParameters',
  metadata: { name, namespace: 'ns', generation: 1 },
  spec,
});

const route = (name: string, gateway: string, backendRef: Rec): KubeObject => ({
  kind: 'HTTPRoute',
  metadata: { name, namespace: 'ns' },
  spec: { parentRefs: [{ name: gateway }], rules: [{ backendRefs: [backendRef] }] },
});

/** Gateway `mesh` (spiffe) and `plain` (no identity), each with a route to the Service and to the GwBackend. */
function twoGateways() {
  const { store, put } = smallStore();
  put('GwParameters', params('mesh', { spiffe: { socketPath: '/run/spire/agent.sock' } }));
  put('GwParameters', params('plain', { logging: { level: 'info' } }));
  put('Gateway', gw('mesh', 'mesh'));
  put('Gateway', gw('plain', 'plain'));
  put('Service', {
    kind: 'Service',
    metadata: { name: 'payments', namespace: 'ns' },
    spec: { ports: [{ port: 443 }] },
  });
  put('GwPolicy', {
    apiVersion: 'gw.dev/v1alpha1',
    kind: 'GwPolicy',
    metadata: { name: 'spiffe', namespace: 'ns', generation: 1 },
    spec: {
      targetRefs: [{ group: '', kind: 'Service', name: 'payments' }],
      backend: { tls: { certificateSource: 'SPIFFE' } },
    },
  });
  put('GwBackend', {
    apiVersion: 'gw.dev/v1alpha1',
    kind: 'GwBackend',
    metadata: { name: 'ledger', namespace: 'ns', generation: 1 },
    spec: { static: { host: 'ledger.example', port: 443 }, policies: { tls: { certificateSource: 'SPIFFE' } } },
  });
  for (const g of ['mesh', 'plain']) {
    put('HTTPRoute', route(`pay-${g}`, g, { name: 'payments', port: 443 }));
    put('HTTPRoute', route(`ledger-${g}`, g, { group: 'gw.dev', kind: 'GwBackend', name: 'ledger' }));
  }
  return { store, put };
}

type Conditions = Rec[];
const policyConditions = (s: Map<string, unknown>): Conditions =>
  (s.get('GwPolicy/ns/spiffe') as { ancestors: { conditions: Conditions }[] }).ancestors[0]?.conditions ?? [];
const backendConditions = (s: Map<string, unknown>): Conditions =>
  (s.get('GwBackend/ns/ledger') as { conditions: Conditions }).conditions;
const byType = (c: Conditions, type: string) => c.find((x) => x.type === type);
const unserved = (field: string, gateway: string) =>
  `${field}: SPIFFE needs the proxy's workload identity, and the GwParameters of Gateway ${gateway} set neither spiffe nor istio.enabled`;

describe('certificateSource SPIFFE through Gateways with and without a workload identity', () => {
  it('says the GwPolicy is in effect through the Gateway with an identity and refused through the other', () => {
    const { store } = twoGateways();
    const conditions = policyConditions(translateAll(store, options).statuses);
    expect(byType(conditions, 'Accepted')).toMatchObject({ status: 'True' });
    expect(byType(conditions, 'Attached')).toMatchObject({
      status: 'True',
      message:
        'in effect through Gateway ns/mesh; through Gateway ns/plain the backend edges it reaches are left out (see Enforced)',
    });
    const enforced = byType(conditions, 'Enforced');
    expect(enforced).toMatchObject({ status: 'False', reason: 'NotEnforced' });
    expect(enforced?.message).toContain(unserved('spec.backend.tls.certificateSource', 'ns/plain'));
    expect(enforced?.message).not.toContain('ns/mesh');
  });

  it('says the GwBackend is left out by the routes of the Gateway without an identity only', () => {
    const { store } = twoGateways();
    const enforced = byType(backendConditions(translateAll(store, options).statuses), 'Enforced');
    expect(enforced).toMatchObject({ status: 'False', reason: 'NotEnforced' });
    expect(enforced?.message).toBe(
      `${unserved('spec.policies.tls.certificateSource', 'ns/plain')}, so the routes of that Gateway leave this backend out (ResolvedRefs=False, InvalidBackendTLS)`,
    );
  });

  it('names the per-target field of an MCP GwBackend', () => {
    const { store, put } = twoGateways();
    put('GwBackend', {
      apiVersion: 'gw.dev/v1alpha1',
      kind: 'GwBackend',
      metadata: { name: 'ledger', namespace: 'ns', generation: 2 },
      spec: {
        mcp: {
          targets: [
            { name: 'open', static: { host: 'open.example', port: 80 } },
            {
              name: 'books',
              static: { host: 'books.example', port: 443, policies: { tls: { certificateSource: 'SPIFFE' } } },
            },
          ],
        },
      },
    });
    const enforced = byType(backendConditions(translateAll(store, options).statuses), 'Enforced');
    expect(enforced?.message).toContain(
      unserved('spec.mcp.targets[1].static.policies.tls.certificateSource', 'ns/plain'),
    );
    expect(enforced?.message).not.toContain('ns/mesh');
  });

  it('says left out only for the targetRef whose edges are left out, not for another served through the same Gateway', () => {
    const { store, put } = smallStore();
    put('GwParameters', params('plain', { logging: { level: 'info' } }));
    put('Gateway', gw('plain', 'plain'));
    put('Service', {
      kind: 'Service',
      metadata: { name: 'payments', namespace: 'ns' },
      spec: { ports: [{ port: 443 }] },
    });
    // Its own backend.tls (level BackendOwn) beats the policy's Route level: r2's edge is served.
    put('GwBackend', {
      apiVersion: 'gw.dev/v1alpha1',
      kind: 'GwBackend',
      metadata: { name: 'ledger', namespace: 'ns', generation: 1 },
      spec: { static: { host: 'ledger.example', port: 443 }, policies: { tls: { sni: 'ledger.example' } } },
    });
    put('HTTPRoute', route('r1', 'plain', { name: 'payments', port: 443 }));
    put('HTTPRoute', route('r2', 'plain', { group: 'gw.dev', kind: 'GwBackend', name: 'ledger' }));
    put('GwPolicy', {
      apiVersion: 'gw.dev/v1alpha1',
      kind: 'GwPolicy',
      metadata: { name: 'spiffe', namespace: 'ns', generation: 1 },
      spec: {
        targetRefs: [
          { group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'r1' },
          { group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'r2' },
        ],
        backend: { tls: { certificateSource: 'SPIFFE' } },
      },
    });
    const { statuses } = translateAll(store, options);
    const ancestors = (
      statuses.get('GwPolicy/ns/spiffe') as { ancestors: { ancestorRef: Rec; conditions: Conditions }[] }
    ).ancestors;
    const of = (name: string) => ancestors.find((a) => a.ancestorRef.name === name)?.conditions ?? [];
    expect(byType(of('r1'), 'Attached')?.message).toBe(
      'through Gateway ns/plain the backend edges it reaches are left out (see Enforced)',
    );
    expect(byType(of('r1'), 'Enforced')).toMatchObject({ status: 'False', reason: 'NotEnforced' });
    expect(byType(of('r2'), 'Attached')).toMatchObject({
      status: 'True',
      message: 'in effect through Gateway ns/plain',
    });
    expect(byType(of('r2'), 'Enforced')).toBeUndefined();
    const r2 = statuses.get('HTTPRoute/ns/r2') as { parents: { conditions: Conditions }[] };
    expect(byType(r2.parents[0]?.conditions ?? [], 'ResolvedRefs')).toMatchObject({ status: 'True' });
  });

  it('counts istio on for the built-in class under --istio-auto-enabled, unless the GwParameters opt out', () => {
    const { store, put } = twoGateways();
    const auto = { ...options, istioAutoEnabledClass: 'gw' };
    // `plain` leaves istio.enabled unset: its proxy is deployed with the mesh identity, so nothing is left out.
    let statuses = translateAll(store, auto).statuses;
    expect(byType(backendConditions(statuses), 'Enforced')).toBeUndefined();
    expect(byType(policyConditions(statuses), 'Attached')).toMatchObject({
      status: 'True',
      message: 'in effect through Gateway ns/mesh, ns/plain',
    });
    // Opting out at the Gateway's GwParameters: refused through it again, as without the flag.
    put('GwParameters', params('plain', { istio: { enabled: false } }));
    statuses = translateAll(store, auto).statuses;
    expect(byType(backendConditions(statuses), 'Enforced')?.message).toContain(
      unserved('spec.policies.tls.certificateSource', 'ns/plain'),
    );
    // Another class is not the built-in one.
    statuses = translateAll(store, { ...options, istioAutoEnabledClass: 'other' }).statuses;
    expect(byType(backendConditions(statuses), 'Enforced')).toMatchObject({ status: 'False' });
  });

  it('names at most 16 Gateways in one sentence, however many leave the edges out', () => {
    const { store, put } = twoGateways();
    const many = Array.from({ length: 20 }, (_, i) => `plain${String(i).padStart(2, '0')}`);
    for (const g of many) {
      put('Gateway', gw(g, 'plain'));
      put('HTTPRoute', route(`pay-${g}`, g, { name: 'payments', port: 443 }));
      put('HTTPRoute', route(`ledger-${g}`, g, { group: 'gw.dev', kind: 'GwBackend', name: 'ledger' }));
    }
    const { statuses } = translateAll(store, options);
    // ns/plain and the 20 others: 16 named, the 5 last (in name order) counted.
    const named = ['ns/plain', ...many.slice(0, 15).map((g) => `ns/${g}`)].join(', ');
    const backend = byType(backendConditions(statuses), 'Enforced')?.message as string;
    expect(backend).toBe(
      `${unserved('spec.policies.tls.certificateSource', `${named} and 5 more`)}, so the routes of those Gateways leave this backend out (ResolvedRefs=False, InvalidBackendTLS)`,
    );
    const policy = policyConditions(statuses);
    expect(byType(policy, 'Enforced')?.message).toBe(
      `${unserved('spec.backend.tls.certificateSource', `${named} and 5 more`)}, so the backend edges it reaches through those Gateways are left out (their routes say ResolvedRefs=False, InvalidBackendTLS)`,
    );
    expect(byType(policy, 'Attached')?.message).toBe(
      `in effect through Gateway ns/mesh; through Gateway ${named} and 5 more the backend edges it reaches are left out (see Enforced)`,
    );
  });

  it('clears both refusals when the second Gateway gets an identity, with no other change', () => {
    const { store, put } = twoGateways();
    const state = translateAll(store, options);
    expect(byType(policyConditions(state.statuses), 'Enforced')).toBeDefined();
    const previous = getObject(store, 'GwParameters', 'ns/plain');
    put('GwParameters', params('plain', { istio: { enabled: true } }));
    applyChange(state, store, 'GwParameters/ns/plain', previous);
    expect(byType(policyConditions(state.statuses), 'Attached')?.message).toBe(
      'in effect through Gateway ns/mesh, ns/plain',
    );
    expect(byType(policyConditions(state.statuses), 'Enforced')).toBeUndefined();
    expect(byType(backendConditions(state.statuses), 'Enforced')).toBeUndefined();
  });
});
