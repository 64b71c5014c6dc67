// Incremental re-translation must give exactly what a full translation of the same store gives.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseManifests } from '../../src/controller/local/manifests.js';
import {
  affectedGateways,
  applyChange,
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
