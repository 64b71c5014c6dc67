// BackendTLSPolicy beyond the golden cases: what a change to one object does to a policy's status (the
// ConfigMap appearing, an older rival arriving), and how its ancestors share status with other controllers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { statusPatch } from '../../src/controller/status-merge.js';
import { parseManifests } from '../../src/controller/local/manifests.js';
import { explainRoute, renderExplanation } from '../../src/translate/status/explain.js';
import { applyChange, translateAll } from '../../src/translate/state.js';
import { createStore, putObject } from '../../src/translate/objects/store.js';
import type { KubeObject } from '../../src/translate/objects/types.js';
import { gatewayWithStaticBackend } from '../proxy/translated-ir.js';
import { goldenInput, goldenOptions } from './golden-render.js';

const CA = readFileSync(join(import.meta.dirname, '..', 'proxy', 'tls-testdata', 'ca.crt'), 'utf8');
const options = { controllerName: 'gw.dev/gateway-controller', now: '2026-01-01T00:00:00Z' };

const base = `${gatewayWithStaticBackend(1)}---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: default}
spec: {ports: [{port: 443}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: api, namespace: default}
spec: {parentRefs: [{name: web}], rules: [{backendRefs: [{name: api, port: 443}]}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: api, namespace: default, creationTimestamp: "2026-02-01T00:00:00Z"}
spec:
  targetRefs: [{group: "", kind: Service, name: api}]
  validation: {caCertificateRefs: [{group: "", kind: ConfigMap, name: ca}], hostname: api.example.test}
`;

function setup() {
  const store = createStore();
  for (const { kind, obj } of parseManifests(base, 't').objects) putObject(store, kind, obj, 't');
  return { store, state: translateAll(store, options) };
}

const conditionsOf = (s: unknown) =>
  (
    s as { ancestors: { conditions: { type: string; status: string; reason: string }[] }[] }
  ).ancestors[0]?.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`);

describe('BackendTLSPolicy status', () => {
  it('turns Accepted and ResolvedRefs true and programs TLS once the CA ConfigMap appears', () => {
    const { store, state } = setup();
    expect(conditionsOf(state.statuses.get('BackendTLSPolicy/default/api'))).toEqual([
      'Accepted=False/NoValidCACertificate',
      'ResolvedRefs=False/InvalidCACertificateRef',
    ]);
    const cm: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'ca', namespace: 'default' },
      data: { 'ca.crt': CA },
    };
    putObject(store, 'ConfigMap', cm, 't');
    const r = applyChange(state, store, 'ConfigMap/default/ca');
    expect(r.gateways).toEqual(['default/web']);
    expect(conditionsOf(state.statuses.get('BackendTLSPolicy/default/api'))).toEqual([
      'Accepted=True/Accepted',
      'ResolvedRefs=True/ResolvedRefs',
    ]);
    const route = state.gateways.get('default/web')?.snapshot.resources.find((x) => x.kind === 'route');
    expect(route?.kind === 'route' && route.route.backends?.[0]?.tls?.sni).toBe('api.example.test');
  });

  it('marks the newer of two policies for the same Service Conflicted when an older one arrives', () => {
    const { store, state } = setup();
    const older = parseManifests(base, 't').objects.find((o) => o.kind === 'BackendTLSPolicy')!.obj;
    putObject(
      store,
      'BackendTLSPolicy',
      { ...older, metadata: { ...older.metadata, name: 'older', creationTimestamp: '2026-01-01T00:00:00Z' } },
      't',
    );
    applyChange(state, store, 'BackendTLSPolicy/default/older');
    expect(conditionsOf(state.statuses.get('BackendTLSPolicy/default/api'))?.[0]).toBe('Accepted=False/Conflicted');
    expect(conditionsOf(state.statuses.get('BackendTLSPolicy/default/older'))?.[0]).not.toBe(
      'Accepted=False/Conflicted',
    );
  });

  it("gw explain names the BackendTLSPolicy that set an edge's upstream TLS, per port", () => {
    const text = goldenInput(readFileSync(join(import.meta.dirname, 'testdata', 'backend-tls-policy.yaml'), 'utf8'));
    const store = createStore();
    for (const { kind, obj } of parseManifests(text, 't').objects) putObject(store, kind, obj, 't');
    const out = renderExplanation(
      explainRoute(translateAll(store, goldenOptions(text)), 'HTTPRoute', 'default', 'web'),
    );
    expect(out).toContain(
      'backend Service/default/multi:443 (weight 1):\n    (no policy fields)\n    upstream TLS set by BackendTLSPolicy default/multi-https (SNI a.example.test)',
    );
    expect(out).toContain('upstream TLS set by BackendTLSPolicy default/multi-all (SNI multi.example.com)');
    expect(out).not.toMatch(/plain:80[^\n]*\n[^\n]*\n {4}upstream TLS/);
  });

  it('writes only our ancestors and keeps those of other controllers', () => {
    const cond = {
      type: 'Accepted',
      status: 'True',
      reason: 'Accepted',
      message: 'm',
      observedGeneration: 1,
      lastTransitionTime: 'T0',
    };
    const theirs = { ancestorRef: { name: 'other' }, controllerName: 'other.io/ctl', conditions: [cond] };
    const ours = { ancestorRef: { name: 'web' }, controllerName: options.controllerName, conditions: [cond] };
    expect(
      statusPatch('BackendTLSPolicy', { ancestors: [theirs] }, { ancestors: [ours] }, options.controllerName),
    ).toEqual({ ancestors: [theirs, ours] });
    expect(statusPatch('BackendTLSPolicy', { ancestors: [theirs, ours] }, undefined, options.controllerName)).toEqual({
      ancestors: [theirs],
    });
    expect(statusPatch('BackendTLSPolicy', { ancestors: [theirs] }, undefined, options.controllerName)).toBeUndefined();
  });
});
