// One policy reaching many rules gives them one shared, frozen IR part for its cors and authorization and
// one refusal object per refused field and source (ir-policy.ts, coverage/effective.ts): what keeps a
// controller with 10,000 rules from holding 10,000 copies (docs/performance.md).
import { describe, expect, it } from 'vitest';
import { translateAll } from '../../src/translate/state.js';
import type { RouteInput } from '../../src/ir/types.js';
import { smallStore } from './small-store.js';

const OPTIONS = { controllerName: 'gw.dev/gateway-controller', now: '2026-01-01T00:00:00Z' };
const GW = 'gateway.networking.k8s.io';

function routes(): RouteInput[] {
  const { store, put } = smallStore(['r0', 'r1', 'r2']);
  // A backend that sets what was the last refused field of the coverage tables (HTTP settings per MCP target).
  put('GwBackend', {
    apiVersion: 'gw.dev/v1alpha1',
    kind: 'GwBackend',
    metadata: { name: 'b', namespace: 'ns' },
    spec: {
      mcp: {
        targets: [{ name: 't', static: { host: '10.0.0.1', port: 80, policies: { http: { version: 'HTTP2' } } } }],
      },
    },
  });
  put('GwPolicy', {
    apiVersion: 'gw.dev/v1alpha1',
    kind: 'GwPolicy',
    metadata: { name: 'all', namespace: 'ns' },
    spec: {
      targetRefs: [{ group: GW, kind: 'Gateway', name: 'gw' }],
      traffic: {
        cors: { allowOrigins: ['https://app.example'] },
        authorization: { policy: { matchExpressions: ['request.path.startsWith("/r")'] } },
      },
    },
  });
  const state = translateAll(store, OPTIONS);
  const out: RouteInput[] = [];
  for (const r of state.gateways.get('ns/gw')?.snapshot.resources ?? []) if (r.kind === 'route') out.push(r.route);
  return out;
}

describe('IR parts one policy gives many rules', () => {
  const all = routes();

  it('are one frozen object for cors and for authorization', () => {
    expect(all).toHaveLength(3);
    const [first, ...rest] = all as [RouteInput, ...RouteInput[]];
    expect(first.policy?.cors?.allowOrigins).toEqual(['https://app.example']);
    expect(first.policy?.authorization?.rules?.[0]?.expressions).toEqual(['request.path.startsWith("/r")']);
    for (const r of rest) {
      expect(r.policy?.cors).toBe(first.policy?.cors);
      expect(r.policy?.authorization).toBe(first.policy?.authorization);
    }
    expect(Object.isFrozen(first.policy?.cors)).toBe(true);
    expect(Object.isFrozen(first.policy?.cors?.allowOrigins)).toBe(true);
    expect(Object.isFrozen(first.policy?.authorization?.rules?.[0]?.expressions)).toBe(true);
  });

  // One refusal object per refused field and source (coverage/effective.ts) has nothing to share while the
  // coverage tables refuse no field: issue 37 made the last one (an MCP target's http.version) enforced.
  it('carry no refusal of an MCP target http.version, which every edge applies', () => {
    for (const r of all) expect(r.refusals ?? []).toEqual([]);
    for (const r of all) expect(r.backends?.[0]?.targetHttpVersions).toEqual({ t: 'HTTP2' });
  });
});
