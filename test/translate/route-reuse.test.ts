// A gateway translated again keeps the IR routes of the routes nothing changed under (route-reuse.ts), and
// still gives exactly what a full translation of the same store gives.
import { describe, expect, it } from 'vitest';
import { applyChange, snapshots, translateAll, type TranslationState } from '../../src/translate/state.js';
import { getObject, putObject, type Store } from '../../src/translate/objects/store.js';
import type { KubeObject } from '../../src/translate/objects/types.js';
import { smallStore } from './small-store.js';

const OPTIONS = { controllerName: 'gw.dev/gateway-controller', now: '2026-01-01T00:00:00Z' };
const GW = 'gateway.networking.k8s.io';

function policy(name: string, route: string, expr: string): KubeObject {
  return {
    apiVersion: 'gw.dev/v1alpha1',
    kind: 'GwPolicy',
    metadata: { name, namespace: 'ns' },
    spec: {
      targetRefs: [{ group: GW, kind: 'HTTPRoute', name: route, sectionName: 'rule-0' }],
      traffic: { authorization: { policy: { matchExpressions: [expr] } } },
    },
  };
}

function cluster(): Store {
  const { store, put } = smallStore(['r0', 'r1', 'r2']);
  for (const r of ['r0', 'r1', 'r2']) put('GwPolicy', policy(`${r}-p`, r, 'true'));
  return store;
}

function view(state: TranslationState) {
  return {
    snapshots: Object.fromEntries(snapshots(state)),
    statuses: Object.fromEntries([...state.statuses].sort(([a], [b]) => (a < b ? -1 : 1))),
  };
}

function irRoutes(state: TranslationState): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const r of state.gateways.get('ns/gw')?.snapshot.resources ?? [])
    if (r.kind === 'route') out.set(r.route.name ?? '', r.route);
  return out;
}

function change(store: Store, state: TranslationState | undefined, name: string, route: string, expr: string): void {
  const previous = getObject(store, 'GwPolicy', `ns/${name}`);
  putObject(store, 'GwPolicy', policy(name, route, expr), 'test');
  if (state) applyChange(state, store, `GwPolicy/ns/${name}`, previous);
}

describe('route reuse', () => {
  it('keeps the IR routes of the routes a policy change does not reach', () => {
    const store = cluster();
    const state = translateAll(store, OPTIONS);
    const before = irRoutes(state);
    change(store, state, 'r1-p', 'r1', 'request.path.size() > 1');
    const after = irRoutes(state);
    expect(after.get('HTTPRoute/ns/r0/rule-0')).toBe(before.get('HTTPRoute/ns/r0/rule-0'));
    expect(after.get('HTTPRoute/ns/r2/rule-0')).toBe(before.get('HTTPRoute/ns/r2/rule-0'));
    expect(after.get('HTTPRoute/ns/r1/rule-0')).not.toBe(before.get('HTTPRoute/ns/r1/rule-0'));
    expect(view(state)).toEqual(view(translateAll(store, OPTIONS)));
  });

  it('translates a route again when an object it read changed since, even if this pass did not plan it', () => {
    const store = cluster();
    const state = translateAll(store, OPTIONS);
    // r2's policy changes while a pass runs (the next pass's change); this pass re-translates the gateway for r1.
    change(store, undefined, 'r2-p', 'r2', 'request.path.size() > 2');
    change(store, state, 'r1-p', 'r1', 'request.path.size() > 1');
    expect(view(state).snapshots).toEqual(view(translateAll(store, OPTIONS)).snapshots);
  });
});
