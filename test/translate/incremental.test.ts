// Incremental re-translation must give exactly what a full translation of the same store gives.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseManifests } from '../../src/controller/local/manifests.js';
import { IncrementalTranslation, PendingChanges } from '../../src/controller/incremental.js';
import {
  affectedGateways,
  applyChange,
  applyChanges,
  snapshots,
  translateAll,
  type TranslationState,
} from '../../src/translate/state.js';
import { createStore, getObject, putObject, removeObject } from '../../src/translate/objects/store.js';
import { nameKey, objectKey, isClusterScoped } from '../../src/translate/objects/types.js';
import { goldenCaseFiles, goldenInput, goldenOptions } from './golden-render.js';

const dir = join(import.meta.dirname, 'testdata');
const cases = goldenCaseFiles();

function view(state: TranslationState) {
  return {
    snapshots: Object.fromEntries(snapshots(state)),
    statuses: Object.fromEntries([...state.statuses].sort(([a], [b]) => (a < b ? -1 : 1))),
  };
}

describe('incremental re-translation', () => {
  for (const file of cases) {
    it(`matches a full translation when each object of ${file} is removed and added back`, () => {
      const text = goldenInput(readFileSync(join(dir, file), 'utf8'));
      const options = goldenOptions(text);
      const { objects } = parseManifests(text, file);
      const store = createStore();
      for (const { kind, obj } of objects) putObject(store, kind, obj, file);
      const state = translateAll(store, options);
      for (const { kind, obj } of objects) {
        const key = nameKey(
          isClusterScoped(kind) ? undefined : (obj.metadata.namespace ?? 'default'),
          obj.metadata.name,
        );
        const ok = objectKey(kind, key);
        const previous = removeObject(store, kind, key);
        applyChange(state, store, ok, previous);
        expect(view(state), `after removing ${ok}`).toEqual(view(translateAll(store, options)));
        putObject(store, kind, obj, file);
        applyChange(state, store, ok, undefined);
        expect(view(state), `after adding ${ok} back`).toEqual(view(translateAll(store, options)));
      }
    });
  }

  it('re-translates only the gateway a changed policy reaches', () => {
    const text = goldenInput(readFileSync(join(dir, 'multiple-gateways.yaml'), 'utf8'));
    const store = createStore();
    for (const { kind, obj } of parseManifests(text, 'm').objects) putObject(store, kind, obj, 'm');
    putObject(
      store,
      'Gateway',
      {
        kind: 'Gateway',
        metadata: { name: 'lonely', namespace: 'default' },
        spec: { gatewayClassName: 'gw', listeners: [{ name: 'l', port: 1, protocol: 'HTTP' }] },
      },
      'm',
    );
    const state = translateAll(store, goldenOptions(text));
    const policy = {
      apiVersion: 'gw.dev/v1alpha1',
      kind: 'GwPolicy',
      metadata: { name: 'p', namespace: 'default' },
      spec: {
        targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'web2' }],
        traffic: { authorization: { policy: { matchExpressions: ['true'] } } },
      },
    };
    putObject(store, 'GwPolicy', policy, 'm');
    expect(affectedGateways(store, 'GwPolicy/default/p', state)).toEqual(['default/web2']);
    const r = applyChange(state, store, 'GwPolicy/default/p', undefined);
    expect(r.gateways).toEqual(['default/web2']);
    expect(getObject(store, 'GwPolicy', 'default/p')).toBeDefined();
    expect(state.statuses.get('GwPolicy/default/p')).toMatchObject({
      ancestors: [
        {
          conditions: [
            { type: 'Accepted', status: 'True' },
            { type: 'Attached', status: 'True' },
          ],
        },
      ],
    });
  });

  it('re-runs every Gateway of a class when the GwParameters its parametersRef names change (issue 16 item 4)', () => {
    const text = goldenInput(readFileSync(join(dir, 'multiple-gateways.yaml'), 'utf8'));
    const store = createStore();
    for (const { kind, obj } of parseManifests(text, 'm').objects) putObject(store, kind, obj, 'm');
    const cls = getObject(store, 'GatewayClass', 'gw');
    expect(cls).toBeDefined();
    putObject(
      store,
      'GatewayClass',
      {
        ...cls!.obj,
        spec: {
          ...(cls!.obj.spec as object),
          parametersRef: { group: 'gw.dev', kind: 'GwParameters', name: 'class-params', namespace: 'gw-system' },
        },
      },
      'm',
    );
    const state = translateAll(store, goldenOptions(text));
    putObject(
      store,
      'GwParameters',
      {
        apiVersion: 'gw.dev/v1alpha1',
        kind: 'GwParameters',
        metadata: { name: 'class-params', namespace: 'gw-system' },
        spec: { logging: { level: 'debug' } },
      },
      'm',
    );
    expect(applyChange(state, store, 'GwParameters/gw-system/class-params', undefined).gateways).toEqual([
      'default/web',
      'default/web2',
    ]);
    putObject(
      store,
      'GwParameters',
      {
        apiVersion: 'gw.dev/v1alpha1',
        kind: 'GwParameters',
        metadata: { name: 'other', namespace: 'gw-system' },
        spec: {},
      },
      'm',
    );
    expect(applyChange(state, store, 'GwParameters/gw-system/other', undefined).gateways).toEqual([]);
  });

  it('changes a snapshot version exactly when something the gateway read changed', () => {
    const text = goldenInput(readFileSync(join(dir, 'multiple-gateways.yaml'), 'utf8'));
    const store = createStore();
    for (const { kind, obj } of parseManifests(text, 'm').objects) putObject(store, kind, obj, 'm');
    const before = snapshots(translateAll(store, goldenOptions(text)));
    putObject(
      store,
      'GwPolicy',
      {
        apiVersion: 'gw.dev/v1alpha1',
        kind: 'GwPolicy',
        metadata: { name: 'only-web2', namespace: 'default' },
        spec: {
          targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'web2' }],
          backend: { tcp: { connectTimeout: '1s' } },
        },
      },
      'm',
    );
    const after = snapshots(translateAll(store, goldenOptions(text)));
    expect(after.get('default/web')?.version).toBe(before.get('default/web')?.version);
    expect(after.get('default/web2')?.version).not.toBe(before.get('default/web2')?.version);
  });
});

describe('batched re-translation (applyChanges)', () => {
  for (const file of cases) {
    it(`matches a full translation when every object of ${file} is removed, then all added back, in one batch each`, () => {
      const text = goldenInput(readFileSync(join(dir, file), 'utf8'));
      const options = goldenOptions(text);
      const { objects } = parseManifests(text, file);
      const store = createStore();
      for (const { kind, obj } of objects) putObject(store, kind, obj, file);
      const state = translateAll(store, options);
      const keyOf = (kind: (typeof objects)[number]['kind'], obj: (typeof objects)[number]['obj']) =>
        nameKey(isClusterScoped(kind) ? undefined : (obj.metadata.namespace ?? 'default'), obj.metadata.name);
      // Every other object leaves at once, then comes back at once.
      const half = objects.filter((_, i) => i % 2 === 1);
      const removed = half.map(({ kind, obj }) => ({
        key: objectKey(kind, keyOf(kind, obj)),
        previous: removeObject(store, kind, keyOf(kind, obj)),
      }));
      applyChanges(state, store, removed);
      expect(view(state), 'after the batch removal').toEqual(view(translateAll(store, options)));
      for (const { kind, obj } of half) putObject(store, kind, obj, file);
      applyChanges(
        state,
        store,
        removed.map((r) => ({ key: r.key, previous: undefined })),
      );
      expect(view(state), 'after the batch re-add').toEqual(view(translateAll(store, options)));
    });
  }

  it('translates a gateway once for a burst of 40 routes on it, not once per route', () => {
    const routes = Array.from(
      { length: 40 },
      (_, i) => `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r${i}, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules: [{matches: [{path: {type: PathPrefix, value: /r${i}}}], backendRefs: [{name: svc, port: 80}]}]
`,
    );
    const base = `apiVersion: gateway.networking.k8s.io/v1
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
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: other, namespace: default}
spec:
  gatewayClassName: gw
  listeners: [{name: http, port: 8081, protocol: HTTP}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: default}
spec: {ports: [{port: 80}]}
`;
    const store = createStore();
    for (const { kind, obj } of parseManifests(base, 'b').objects) putObject(store, kind, obj, 'b');
    const options = { controllerName: 'gw.dev/gateway-controller', now: '2026-01-01T00:00:00Z' };
    const translation = new IncrementalTranslation(store);
    translation.run(options, []);
    const before = translation.translations;
    const pending = new PendingChanges();
    for (const { kind, obj } of parseManifests(routes.join(''), 'r').objects) {
      const key = nameKey(obj.metadata.namespace, obj.metadata.name);
      pending.record(objectKey(kind, key), getObject(store, kind, key));
      putObject(store, kind, obj, 'r');
    }
    const pass = translation.run(options, pending.take());
    expect(pass.gateways).toEqual(['default/web']);
    expect(translation.translations - before).toBe(1);
    const web = snapshots(translation.state!).get('default/web');
    expect(web?.resources.filter((r) => r.kind === 'route')).toHaveLength(40);
  });
});
