// GwPolicy traffic fields → typed Route.traffic (the translator's typedTraffic) → the proxy's plan: table
// cases in testdata/traffic-policy-cases.yaml. The proxy reads only the typed field, never Route.effective.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { normalizeSnapshot } from '../../src/ir/load.js';
import type { Route, TrafficPolicyInput } from '../../src/ir/types.js';
import { checkSnapshot } from '../../src/proxy/snapshot-check.js';
import { compileTraffic, type TrafficPlan } from '../../src/proxy/policy/traffic-policy.js';
import { typedTraffic } from '../../src/translate/policies/ir-traffic.js';

interface Case {
  name: string;
  fields?: Record<string, unknown>;
  ir?: TrafficPolicyInput;
  plan?: Record<string, unknown>;
  problems?: string[];
}

const cases = parse(readFileSync(new URL('./testdata/traffic-policy-cases.yaml', import.meta.url), 'utf8')) as Case[];

function snapshotWith(traffic: TrafficPolicyInput | undefined, effective: Record<string, string> = {}) {
  return normalizeSnapshot({
    version: '1',
    resources: [
      { bind: { name: 'b', port: 0, address: '127.0.0.1' } },
      { listener: { name: 'l', bind: 'b', protocol: 'HTTP' } },
      { backend: { name: 'up', static: { host: '127.0.0.1', port: 1 } } },
      {
        route: {
          name: 'api',
          listeners: ['l'],
          backends: [{ backend: 'up', weight: 1 }],
          effective: { fields: effective },
          ...(traffic ? { traffic } : {}),
        },
      },
    ],
  });
}

function routeOf(traffic: TrafficPolicyInput | undefined): Route {
  const r = snapshotWith(traffic).resources.find((x) => x.route)?.route;
  if (!r) throw new Error('no route');
  return r;
}

/** The plan as plain data: sets become sorted lists, empty defaults are left out. */
function plain(plan: TrafficPlan): Record<string, unknown> {
  const out: Record<string, unknown> = { ...plan };
  if (plan.retry) out.retry = { ...plan.retry, codes: [...plan.retry.codes].sort((a, b) => a - b) };
  if (plan.limits.length === 0) delete out.limits;
  if (plan.tokenLimits.length === 0) delete out.tokenLimits;
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out;
}

describe('compileTraffic', () => {
  for (const c of cases) {
    it(c.name, () => {
      const { plan, problems } = compileTraffic(routeOf(c.ir ?? typedTraffic(c.fields ?? {})));
      expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual(c.problems ?? []);
      if (c.plan) expect(plain(plan)).toEqual(c.plan);
    });
  }

  it('ignores the JSON text in Route.effective: only the typed field counts', () => {
    const route = snapshotWith(undefined, { 'traffic.retry': '{"attempts":3}', 'traffic.csrf': '{}' }).resources.find(
      (x) => x.route,
    )?.route as Route;
    expect(plain(compileTraffic(route).plan)).toEqual({});
  });
});

describe('the snapshot check and traffic fields', () => {
  it('rejects a snapshot whose route carries a malformed typed traffic field, naming route and field', () => {
    expect(checkSnapshot(snapshotWith({ retry: { attempts: 11 } }), 'xds')).toEqual([
      { source: 'xds', object: 'Route api', path: 'traffic.retry.attempts', message: 'must be at most 10, got 11' },
    ]);
  });
});
