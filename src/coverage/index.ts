// The coverage table of every kind and the one refusal decision: which fields an object sets that
// this release refuses (issue 14). Status, `gw explain`, the IR and the standalone loader all call
// `refusalsOf`; nothing else decides what is refused.
import { classifyNearest, cutTo, normalize, patternDepth } from './match.js';
import { gwBackendCoverage } from './gw-backend.js';
import { gwModelCoverage } from './gw-model.js';
import { gwParametersCoverage } from './gw-parameters.js';
import { gwPolicyCoverage } from './gw-policy.js';
import { standaloneCoverage } from './standalone.js';
import type { CoverageTable } from './types.js';

export type CoveredKind = 'GwPolicy' | 'GwBackend' | 'GwModel' | 'GwParameters' | 'standalone';
export type { Coverage, CoverageTable } from './types.js';

export const coverageTables: Readonly<Record<CoveredKind, CoverageTable>> = {
  GwPolicy: gwPolicyCoverage,
  GwBackend: gwBackendCoverage,
  GwModel: gwModelCoverage,
  GwParameters: gwParametersCoverage,
  standalone: standaloneCoverage,
};

/** One refused field an object sets: `field` is the concrete path (`spec.traffic.csrf`). */
export interface FieldRefusal {
  field: string;
  reason: string;
  security: boolean;
}

/** The refused fields `spec` sets, sorted by path; `root` is `spec` for resources, `` for the standalone file. */
export function refusalsOf(
  kind: CoveredKind,
  spec: unknown,
  root = kind === 'standalone' ? '' : 'spec',
): FieldRefusal[] {
  const table = coverageTables[kind];
  const out = new Map<string, FieldRefusal>();
  // Every value set under `spec` (objects descend, arrays index; an empty object or array is a value) is
  // classified by its normalized path (`spec.a[].b`); the concrete path (`spec.a[3].b`) is only spelled
  // out for a refused one, from the segments walked to it. This runs for every stored value a policy
  // merge makes effective, so it builds no list of leaves and no path it does not need.
  const segments: string[] = [];
  const leaf = (v: unknown, norm: string): void => {
    const hit = classifyNearest(table, norm);
    if (!hit || !('refused' in hit[1])) return;
    const c = hit[1];
    if (c.values && !c.values.includes(String(v))) return;
    const field = cutTo(root + segments.join(''), patternDepth(hit[0]));
    if (!out.has(field)) out.set(field, { field, reason: c.refused, security: c.security });
  };
  const visit = (v: unknown, norm: string): void => {
    if (v === undefined || v === null) return;
    if (Array.isArray(v)) {
      if (v.length === 0) return leaf(v, norm);
      const inner = `${norm}[]`;
      for (let i = 0; i < v.length; i++) {
        segments.push(`[${i}]`);
        visit(v[i], inner);
        segments.pop();
      }
      return;
    }
    if (typeof v !== 'object') return leaf(v, norm);
    const keys = Object.keys(v);
    if (keys.length === 0) return leaf(v, norm);
    for (const k of keys) {
      const key = k.includes('[') ? normalize(k) : k;
      segments.push(root === '' && segments.length === 0 ? k : `.${k}`);
      visit((v as Record<string, unknown>)[k], norm ? `${norm}.${key}` : key);
      segments.pop();
    }
  };
  visit(spec, root);
  return [...out.values()].sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
}

/** One line per refusal, as status messages and `--validate-only` print them. */
export function refusalText(refusals: readonly FieldRefusal[]): string {
  return refusals.map((r) => `${r.field}: ${r.reason}${r.security ? ' (security: fails closed)' : ''}`).join('; ');
}
