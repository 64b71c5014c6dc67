// Issue 31, table-driven from the coverage table: for every security-relevant entry of GwPolicy, GwBackend and
// GwModel, an invalid object that sets that field keeps its attachment and what it targets refuses traffic:
// the IR route (listener for frontend fields, model for GwModel) carries a security refusal naming the object
// and the field. The proxy answers 503 on any route with a security refusal (test/proxy/invalid-policy-fails-closed.test.ts).
import { describe, expect, it } from 'vitest';
import { coverageTables } from '../../src/coverage/index.js';
import type { IrRefusal } from '../../src/coverage/effective.js';
import { putObject } from '../../src/translate/objects/store.js';
import { snapshots, translateAll } from '../../src/translate/state.js';
import { smallStore } from './small-store.js';

/** `spec.a[].b.*` → the concrete path `spec.a[0].b` one value is set at. */
const concrete = (pattern: string): string => pattern.replace(/\.\*$/, '').replace(/\[\]/g, '[0]');

/** A copy of `spec` with `value` at the concrete `path` (below `spec`), arrays made where an index is named. */
function withValue(spec: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const out = structuredClone(spec);
  const steps = path
    .replace(/^spec\.?/, '')
    .split('.')
    .flatMap((s) => s.split(/\[(\d+)\]/).filter((x) => x !== ''));
  let at: Record<string, unknown> = out;
  steps.forEach((step, i) => {
    if (i === steps.length - 1) {
      at[step] = value;
      return;
    }
    const next = steps[i + 1] ?? '';
    at[step] ??= /^\d+$/.test(next) ? [] : {};
    at = at[step] as Record<string, unknown>;
  });
  return out;
}

const securityPatterns = (kind: 'GwPolicy' | 'GwBackend' | 'GwModel'): string[] =>
  Object.entries(coverageTables[kind])
    .filter(([, c]) => c.security)
    .map(([p]) => p);

/** A value that leaves the object invalid whatever the field's type (an unknown member where one is read). */
const INVALID = { notAField: true };

function translated(kind: 'GwPolicy' | 'GwBackend' | 'GwModel', spec: Record<string, unknown>) {
  const { store, put } = smallStore(['r']);
  if (kind === 'GwBackend')
    put('HTTPRoute', {
      kind: 'HTTPRoute',
      metadata: { name: 'to-bad', namespace: 'ns' },
      spec: {
        parentRefs: [{ name: 'gw' }],
        rules: [{ backendRefs: [{ group: 'gw.dev', kind: 'GwBackend', name: 'bad' }] }],
      },
    });
  const name = kind === 'GwBackend' ? 'bad' : 'p';
  const stored = putObject(
    store,
    kind,
    { apiVersion: 'gw.dev/v1alpha1', kind, metadata: { name, namespace: 'ns' }, spec },
    'test',
  );
  expect(stored.problems.length).toBeGreaterThan(0);
  const state = translateAll(store, { controllerName: 'gw.dev/gateway-controller', now: 'now', enableModels: true });
  const snapshot = snapshots(state).get('ns/gw');
  const resources = (snapshot?.resources ?? []) as {
    route?: { refusals?: IrRefusal[] };
    listener?: { refusals?: IrRefusal[] };
    model?: { refusals?: IrRefusal[] };
  }[];
  return {
    routes: resources.flatMap((r) => r.route?.refusals ?? []),
    listeners: resources.flatMap((r) => r.listener?.refusals ?? []),
    models: resources.flatMap((r) => r.model?.refusals ?? []),
    /** An object's status as JSON text (`GwPolicy/ns/p`). */
    statusText: (key: string): string => JSON.stringify(state.statuses.get(key) ?? {}),
  };
}

/** Whether a security refusal from `source` names `path` or a field around it. */
const closes = (list: IrRefusal[], source: string, path: string): boolean =>
  list.some(
    (r) =>
      r.security &&
      r.source === source &&
      (path === r.field || path.startsWith(`${r.field}.`) || path.startsWith(`${r.field}[`)),
  );

describe('an invalid object with a security field closes what it targets', () => {
  it.each(securityPatterns('GwPolicy'))('GwPolicy %s', (pattern) => {
    const path = concrete(pattern);
    const frontend = path.startsWith('spec.frontend.');
    const target = frontend
      ? { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'gw' }
      : { group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'r' };
    const got = translated('GwPolicy', withValue({ targetRefs: [target] }, path, INVALID));
    expect(closes(frontend ? got.listeners : got.routes, 'GwPolicy ns/p', path)).toBe(true);
    if (frontend) expect(closes(got.routes, 'GwPolicy ns/p', path)).toBe(true);
  });

  it.each(securityPatterns('GwBackend'))('GwBackend %s', (pattern) => {
    const path = concrete(pattern);
    const got = translated('GwBackend', withValue({ static: { host: '10.0.0.2', port: 80 } }, path, INVALID));
    expect(closes(got.routes, 'GwBackend ns/bad', path)).toBe(true);
  });

  it.each(securityPatterns('GwModel'))('GwModel %s', (pattern) => {
    const path = concrete(pattern);
    const base = { parentRefs: [{ name: 'gw' }], provider: 'OpenAI', match: { model: 'gpt-x' } };
    const got = translated('GwModel', withValue(base, path, INVALID));
    expect(closes(got.models, 'GwModel ns/p', path)).toBe(true);
  });

  it('leaves out an invalid object that sets no security field, as before', () => {
    const got = translated('GwPolicy', {
      targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'r' }],
      traffic: { timeouts: INVALID },
    });
    expect(got.routes).toEqual([]);
  });
});

describe('a misspelt security field counts as the field it was meant to be', () => {
  const routeTarget = { group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'r' };
  const jwt = { providers: [{ issuer: 'https://i.test', jwks: { remote: { url: 'https://i.test/jwks' } } }] };

  it('closes the route of a GwPolicy with traffic.jwtAuthentcation, naming the typo and the field', () => {
    const got = translated('GwPolicy', { targetRefs: [routeTarget], traffic: { jwtAuthentcation: jwt } });
    expect(got.routes).toEqual([
      expect.objectContaining({ field: 'spec.traffic.jwtAuthentication', source: 'GwPolicy ns/p', security: true }),
    ]);
    expect(got.routes[0]?.reason).toContain('spec.traffic.jwtAuthentcation is taken as spec.traffic.jwtAuthentication');
    const named = 'spec.traffic.jwtAuthentication (written spec.traffic.jwtAuthentcation)';
    expect(got.statusText('GwPolicy/ns/p')).toContain(named);
    expect(got.statusText('HTTPRoute/ns/r')).toContain(named);
  });

  it('follows a misspelt section down to the security field under it (trafic.csrf)', () => {
    const got = translated('GwPolicy', { targetRefs: [routeTarget], traffic: {}, trafic: { csrf: {} } });
    expect(got.routes.map((r) => r.field)).toEqual(['spec.traffic.csrf']);
  });

  it('closes the rule to a GwBackend with a misspelt target tls section', () => {
    const target = { name: 't', static: { host: '10.0.0.2', port: 80, policies: { tsl: { sni: 'x' } } } };
    const got = translated('GwBackend', { mcp: { targets: [target] } });
    expect(got.routes.map((r) => r.field)).toEqual(['spec.mcp.targets[0].static.policies.tls.sni']);
  });

  it('closes a GwModel with a misspelt policies.authorization', () => {
    const base = { parentRefs: [{ name: 'gw' }], provider: 'OpenAI', match: { model: 'gpt-x' } };
    const got = translated('GwModel', {
      ...base,
      policies: { authorizaton: { policy: { matchExpressions: ['true'] } } },
    });
    expect(got.models.map((r) => r.field)).toEqual(['spec.policies.authorization']);
  });

  it('leaves out a GwPolicy whose typo is closest to a field that does not touch security (traffic.timeuots)', () => {
    const got = translated('GwPolicy', { targetRefs: [routeTarget], traffic: { timeuots: { request: '1s' } } });
    expect(got.routes).toEqual([]);
  });
});
