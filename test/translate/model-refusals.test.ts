// modelRefusals: which GwModel fields the translator refuses. One decision feeds both places users and the
// proxy look: the IR Model's `refusals` and the GwModel's status condition Enforced=False.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { refusalText } from '../../src/coverage/index.js';
import { modelRefusals } from '../../src/translate/models/model-refusals.js';
import { snapshots, translateAll } from '../../src/translate/state.js';
import { createStore, putObject } from '../../src/translate/objects/store.js';
import type { Kind, KubeObject } from '../../src/translate/objects/types.js';

interface Case {
  name: string;
  spec: Record<string, unknown>;
  refusals: { field: string; security: boolean }[];
}
const cases = parse(readFileSync(new URL('./testdata/model-refusals/cases.yaml', import.meta.url), 'utf8')) as Case[];

/** The case's GwModel on a Gateway of our class, translated: its IR Model and its status. */
function translated(spec: Record<string, unknown>): { ir: unknown; status: unknown } {
  const store = createStore();
  const put = (kind: Kind, obj: KubeObject) => putObject(store, kind, obj, 'test');
  put('GatewayClass', {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'GatewayClass',
    metadata: { name: 'gw', generation: 1 },
    spec: { controllerName: 'gw.dev/gateway-controller' },
  });
  put('Gateway', {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name: 'web', namespace: 'default', generation: 1 },
    spec: { gatewayClassName: 'gw', listeners: [{ name: 'http', port: 8080, protocol: 'HTTP' }] },
  });
  put('GwModel', {
    apiVersion: 'gw.dev/v1alpha1',
    kind: 'GwModel',
    metadata: { name: 'm', namespace: 'default', generation: 1 },
    spec: { parentRefs: [{ name: 'web' }], ...spec },
  });
  const state = translateAll(store, {
    controllerName: 'gw.dev/gateway-controller',
    now: '2026-01-01T00:00:00Z',
    enableModels: true,
  });
  const model = snapshots(state)
    .get('default/web')
    ?.resources.find((r) => r.kind === 'model');
  return { ir: model?.kind === 'model' ? model.model : undefined, status: state.statuses.get('GwModel/default/m') };
}

describe('modelRefusals', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const got = modelRefusals({ key: 'default/m', obj: { spec: c.spec } });
    expect(got.map((r) => ({ field: r.field, security: r.security }))).toEqual(c.refusals);
    for (const r of got) {
      expect(r.source).toBe('GwModel default/m');
      expect(r.reason).not.toBe('');
    }
  });

  it.each(cases.map((c) => [c.name, c] as const))('the IR Model and the GwModel status agree: %s', (_name, c) => {
    const { ir, status } = translated(c.spec);
    const refusals = (ir as { refusals?: { field: string; reason: string; security: boolean }[] }).refusals ?? [];
    expect(refusals.map((r) => r.field)).toEqual(c.refusals.map((r) => r.field));
    const parents = (status as { parents: { conditions: { type: string; status: string; message: string }[] }[] })
      .parents;
    expect(parents.length).toBeGreaterThan(0);
    for (const p of parents) {
      const enforced = p.conditions.find((x) => x.type === 'Enforced');
      if (refusals.length === 0) expect(enforced).toBeUndefined();
      else
        expect(enforced).toMatchObject({
          status: 'False',
          message: `not enforced by this release: ${refusalText(refusals)}`,
        });
    }
  });
});
