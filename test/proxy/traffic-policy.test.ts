// Reading GwPolicy traffic fields out of Route.effective: table cases in testdata/traffic-policy-cases.yaml.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { normalizeSnapshot } from '../../src/ir/load.js';
import type { Route } from '../../src/ir/types.js';
import { checkSnapshot } from '../../src/proxy/snapshot-check.js';
import { compileTraffic, type TrafficPlan } from '../../src/proxy/policy/traffic-policy.js';

interface Case { name: string; fields?: Record<string, unknown>; raw?: Record<string, string>; plan?: Record<string, unknown>; problems?: string[] }

const cases = parse(readFileSync(new URL('./testdata/traffic-policy-cases.yaml', import.meta.url), 'utf8')) as Case[];

function routeWith(fields: Record<string, string>): Route {
  return { name: 'r', effective: { fields, provenance: {} } } as unknown as Route;
}

/** The plan as plain data: sets become sorted lists, empty defaults are left out. */
function plain(plan: TrafficPlan): Record<string, unknown> {
  const out: Record<string, unknown> = { ...plan };
  if (plan.retry) out.retry = { ...plan.retry, codes: [...plan.retry.codes].sort((a, b) => a - b) };
  if (plan.limits.length === 0) delete out.limits;
  if (plan.tokenLimits === 0) delete out.tokenLimits;
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out;
}

describe('compileTraffic', () => {
  for (const c of cases) {
    it(c.name, () => {
      const fields = { ...Object.fromEntries(Object.entries(c.fields ?? {}).map(([k, v]) => [k, JSON.stringify(v)])), ...c.raw };
      const { plan, problems } = compileTraffic(routeWith(fields));
      expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual(c.problems ?? []);
      if (c.plan) expect(plain(plan)).toEqual(c.plan);
    });
  }
});

describe('the snapshot check and traffic fields', () => {
  it('rejects a snapshot whose route carries a malformed traffic field, naming route and field', () => {
    const snapshot = normalizeSnapshot({ version: '1', resources: [
      { bind: { name: 'b', port: 0, address: '127.0.0.1' } },
      { listener: { name: 'l', bind: 'b', protocol: 'HTTP' } },
      { backend: { name: 'up', static: { host: '127.0.0.1', port: 1 } } },
      { route: { name: 'api', listeners: ['l'], backends: [{ backend: 'up', weight: 1 }], effective: { fields: { 'traffic.retry': '{"attempts":-1}' } } } },
    ] });
    expect(checkSnapshot(snapshot, 'xds')).toEqual([
      { source: 'xds', object: 'Route api', path: 'effective.fields["traffic.retry"].attempts', message: 'must be an integer between 0 and 10, got -1' },
    ]);
  });
});
