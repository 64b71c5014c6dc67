// The coverage table of every kind and the one refusal decision: which fields an object sets that
// this release refuses (issue 14). Status, `gw explain`, the IR and the standalone loader all call
// `refusalsOf`; nothing else decides what is refused.
import { closestName } from '../problem.js';
import { childNames, classify, classifyNearest, cutTo, normalize, patternDepth } from './match.js';
import { gwBackendCoverage } from './gw-backend.js';
import { gwModelCoverage } from './gw-model.js';
import { gwParametersCoverage } from './gw-parameters.js';
import { gwPolicyCoverage } from './gw-policy.js';
import { standaloneCoverage } from './standalone.js';
import type { Coverage, CoverageTable } from './types.js';

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
  return fieldsSet(kind, spec, root, (c, v) =>
    'refused' in c && (!c.values || c.values.includes(String(v)))
      ? { reason: c.refused, security: c.security }
      : undefined,
  );
}

/** A security field an object sets; `written` is the path as written when it was a misspelling of `field`. */
export interface SecurityField {
  field: string;
  written?: string;
}

/**
 * The security-relevant fields `spec` sets (the coverage table's `security`), each cut to its shortest
 * security-relevant prefix (`spec.traffic.jwtAuthentication`, `spec.backend.mcp.authorization`), sorted.
 * Issue 31: an invalid object that sets one keeps its attachment and what it targets refuses traffic.
 */
export function securityFieldsOf(
  kind: CoveredKind,
  spec: unknown,
  root = kind === 'standalone' ? '' : 'spec',
): string[] {
  return [...new Set(securityFieldsSet(kind, spec, root).map((f) => f.field))].sort();
}

/**
 * securityFieldsOf with the misspellings: a field the table does not know whose closest known sibling
 * (the "did you mean" of validation) is or leads to a security field counts as that field, since the object
 * was meant to set it (`traffic.jwtAuthentcation` closes what `traffic.jwtAuthentication` would guard).
 */
export function securityFieldsSet(
  kind: CoveredKind,
  spec: unknown,
  root = kind === 'standalone' ? '' : 'spec',
): SecurityField[] {
  // Only invalid objects are asked (rarely): every prefix of every value set is classified on its own, so a
  // wrongly typed value under an exact leaf (`tls.sni: {…}`) still counts as setting that leaf.
  const table = coverageTables[kind];
  const out = new Map<string, SecurityField>();
  const visit = (v: unknown, path: string, written: string): void => {
    const hit = path ? classify(table, path) : undefined;
    if (hit?.[1].security) {
      const field = path.replace(/\[\d+\]$/, '');
      const typo = written.replace(/\[\d+\]$/, '');
      const key = `${field} ${typo}`;
      if (!out.has(key)) out.set(key, typo === field ? { field } : { field, written: typo });
      return;
    }
    if (Array.isArray(v)) v.forEach((x, i) => visit(x, `${path}[${i}]`, `${written}[${i}]`));
    else if (v !== null && typeof v === 'object') {
      const known = childNames(table, normalize(path));
      for (const [k, x] of Object.entries(v)) {
        const name = known.length && !known.includes(k) ? (closestName(k, known) ?? k) : k;
        visit(x, path ? `${path}.${name}` : name, written ? `${written}.${k}` : k);
      }
    }
  };
  visit(spec, root, root);
  return [...out.values()].sort((a, b) =>
    `${a.field} ${a.written ?? ''}`.localeCompare(`${b.field} ${b.written ?? ''}`),
  );
}

/** Whether the coverage table counts the (normalized) field path as security-relevant. */
export function isSecurityField(kind: CoveredKind, path: string): boolean {
  return classifyNearest(coverageTables[kind], normalize(path))?.[1].security ?? false;
}

/** The fields `spec` sets whose coverage `pick` answers for, keyed by the path cut to the matching entry. */
function fieldsSet(
  kind: CoveredKind,
  spec: unknown,
  root: string,
  pick: (c: Coverage, v: unknown) => Omit<FieldRefusal, 'field'> | undefined,
): FieldRefusal[] {
  const table = coverageTables[kind];
  const out = new Map<string, FieldRefusal>();
  // Every value set under `spec` (objects descend, arrays index; an empty object or array is a value) is
  // classified by its normalized path (`spec.a[].b`); the concrete path (`spec.a[3].b`) is only spelled
  // out for a picked one, from the segments walked to it. This runs for every stored value a policy
  // merge makes effective, so it builds no list of leaves and no path it does not need.
  const segments: string[] = [];
  const leaf = (v: unknown, norm: string): void => {
    const hit = classifyNearest(table, norm);
    const picked = hit && pick(hit[1], v);
    if (!hit || !picked) return;
    const field = cutTo(root + segments.join(''), patternDepth(hit[0]));
    if (!out.has(field)) out.set(field, { field, ...picked });
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
