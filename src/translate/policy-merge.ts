// The policy merge, the only one in Gw. Field-level, not deep: each top-level field of a section
// (`traffic.cors`, `backend.tls`) comes whole from the single best candidate. Better means a higher
// precedence level; between policy resources at the same level the older one (creationTimestamp,
// then namespace/name) wins and the other is reported as Conflicted. A traffic policy with
// `strategy.inheritance: Override` inverts precedence for its fields: it beats every default, and
// among overrides the less specific level wins, so a platform team's Gateway policy cannot be undone.
import type { IrFieldProvenance } from './ir.js';
import { LEVEL_RANK, type Attachment, type Level } from './policy-targets.js';
import { rec, str, type Rec } from './read.js';
import { displayName } from './types.js';

export type Section = 'frontend' | 'traffic' | 'backend';

export interface Candidate {
  /** Display name of the object that set the values: `GwPolicy ns/name`, `GwBackend ns/name`. */
  source: string;
  /** Set for GwPolicy objects: the one that loses a same-level tie gets a Conflicted condition. */
  policyKey?: string;
  /** The targetRef / targetSelector index the policy attached through (for its ancestor status). */
  targetIndex?: number;
  level: Level;
  /** creationTimestamp; missing sorts as newest (local files carry none, then names decide). */
  created: string;
  /** `ns/name`, the last tie-breaker. */
  order: string;
  override: boolean;
  /** The section object: each own key is one mergeable field. */
  values: Rec;
}

export interface Conflict {
  policyKey: string;
  targetIndex: number;
  /** Section-qualified field, e.g. `traffic.cors`. */
  field: string;
  level: Level;
  winner: string;
}

export interface MergeResult {
  /** Section-qualified path → value as set by the winning candidate. */
  fields: Record<string, unknown>;
  provenance: Record<string, IrFieldProvenance>;
  conflicts: Conflict[];
}

function rank(c: Candidate): number {
  return c.override ? 100 - LEVEL_RANK[c.level] : LEVEL_RANK[c.level];
}

/** Negative when a beats b. */
export function comparePrecedence(a: Candidate, b: Candidate): number {
  const r = rank(b) - rank(a);
  if (r !== 0) return r;
  if (a.created !== b.created) return a.created < b.created ? -1 : 1;
  return a.order < b.order ? -1 : a.order > b.order ? 1 : 0;
}

/** Merges the given candidates for one section into effective fields, provenance and conflicts. */
export function mergePolicies(section: Section, candidates: readonly Candidate[]): MergeResult {
  const out: MergeResult = { fields: {}, provenance: {}, conflicts: [] };
  const byField = new Map<string, Candidate[]>();
  for (const c of candidates) {
    for (const [f, v] of Object.entries(c.values)) {
      if (v === undefined) continue;
      let l = byField.get(f);
      if (!l) byField.set(f, (l = []));
      l.push(c);
    }
  }
  for (const f of [...byField.keys()].sort()) {
    const list = dedupe(byField.get(f) ?? []).sort(comparePrecedence);
    const [winner, ...losers] = list as [Candidate, ...Candidate[]];
    const path = `${section}.${f}`;
    out.fields[path] = winner.values[f];
    const prov: IrFieldProvenance = { source: winner.source, level: winner.level, overridden: losers.map((l) => l.source) };
    out.provenance[path] = prov;
    for (const l of losers) {
      if (l.policyKey && winner.policyKey && rank(l) === rank(winner) && l.policyKey !== winner.policyKey) {
        out.conflicts.push({ policyKey: l.policyKey, targetIndex: l.targetIndex ?? 0, field: path, level: l.level, winner: winner.source });
      }
    }
  }
  return out;
}

/** One policy reaching a context twice at the same level (say by sectionName and by port) counts once. */
function dedupe(list: Candidate[]): Candidate[] {
  const seen = new Set<string>();
  return list.filter((c) => {
    const k = `${c.source}|${c.level}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Combines per-section results into one set of fields (paths are section-qualified, so no clashes). */
export function combine(...results: MergeResult[]): MergeResult {
  const out: MergeResult = { fields: {}, provenance: {}, conflicts: [] };
  for (const r of results) {
    Object.assign(out.fields, r.fields);
    Object.assign(out.provenance, r.provenance);
    out.conflicts.push(...r.conflicts);
  }
  return out;
}

/** The candidate a GwPolicy attachment contributes for one section, or undefined if it sets none. */
export function policyCandidate(a: Attachment, level: Level, section: Section): Candidate | undefined {
  const spec = rec(a.policy.obj.spec) ?? {};
  const values = rec(spec[section]);
  if (!values) return undefined;
  const inheritance = str(rec(spec.strategy)?.inheritance);
  return {
    source: displayName('GwPolicy', a.policy.key),
    policyKey: a.policy.key,
    targetIndex: a.targetIndex,
    level,
    created: a.policy.obj.metadata.creationTimestamp ?? '~',
    order: a.policy.key,
    override: section === 'traffic' && inheritance === 'Override',
    values,
  };
}

/** Settings that are not policy resources (a GwBackend's own `policies`, an MCP target's `policies`). */
export function inlineCandidate(source: string, level: Level, values: Rec | undefined): Candidate | undefined {
  if (!values) return undefined;
  return { source, level, created: '', order: source, override: false, values };
}
