// The coverage table of every kind and the one refusal decision: which fields an object sets that
// this release refuses (issue 14). Status, `gw explain`, the IR and the standalone loader all call
// `refusalsOf`; nothing else decides what is refused.
import { classify, cutTo, patternDepth } from './match.js';
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
  for (const [path, value] of setLeaves(spec, root)) {
    const hit = classifyUp(table, path);
    if (!hit || !('refused' in hit[1])) continue;
    const c = hit[1];
    if (c.values && !c.values.includes(String(value))) continue;
    const field = cutTo(path, patternDepth(hit[0]));
    if (!out.has(field)) out.set(field, { field, reason: c.refused, security: c.security });
  }
  return [...out.values()].sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
}

/** The entry for `path`, or for its nearest ancestor (a map or free-form object is one schema leaf). */
function classifyUp(table: CoverageTable, path: string): ReturnType<typeof classify> {
  for (let p = path; p; p = p.replace(/(\.[^.[]+|\[\d+\])$/, '')) {
    const hit = classify(table, p);
    if (hit) return hit;
    if (!/(\.[^.[]+|\[\d+\])$/.test(p)) break;
  }
  return undefined;
}

/** Concrete paths of every value set under `v` (objects descend, arrays index), with the value. */
function setLeaves(v: unknown, path: string): [string, unknown][] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.length ? v.flatMap((x, i) => setLeaves(x, `${path}[${i}]`)) : [[path, v]];
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>);
    if (!entries.length) return [[path, v]];
    return entries.flatMap(([k, x]) => setLeaves(x, path ? `${path}.${k}` : k));
  }
  return [[path, v]];
}

/** One line per refusal, as status messages and `--validate-only` print them. */
export function refusalText(refusals: readonly FieldRefusal[]): string {
  return refusals.map((r) => `${r.field}: ${r.reason}${r.security ? ' (security: fails closed)' : ''}`).join('; ');
}
