// The policy merge, the only one in Gw. Field-level, not deep: each top-level field of a section
// (`traffic.cors`, `backend.tls`) comes whole from the single best candidate. Better means a higher
// precedence level; between policy resources at the same level the older one (creationTimestamp,
// then namespace/name) wins and the other is reported as Conflicted. A traffic policy with
// `strategy.inheritance: Override` inverts precedence for its fields: it beats every default, and
// among overrides the less specific level wins, so a platform team's Gateway policy cannot be undone.
import type { BackendFull } from '../../api/index.js';
import type { FieldProvenanceInput } from '../../ir/types.js';
import type { IrRefusal } from '../../coverage/effective.js';
import type { EffectiveFields, Section, SectionTypes } from './policy-sections.js';
import { LEVEL_RANK, type Attachment, type Level } from './policy-targets.js';

/** The merge moves fields by name whatever their type: its own view of a section object and of the result. */
type FieldMap = Record<string, unknown>;

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
  /** `strategy.merge: Replace`: less specific candidates contribute nothing to this section. */
  replace?: boolean;
  /** The section object: each own key is one mergeable field. */
  values: SectionTypes[Section];
  /** An invalid policy's security refusals for this section (it brings no values): kept whatever wins. */
  refusals?: readonly IrRefusal[];
}

export interface Conflict {
  policyKey: string;
  targetIndex: number;
  /** Section-qualified field, e.g. `traffic.cors`. */
  field: string;
  level: Level;
  winner: string;
}

/** Where an effective field came from: the IR FieldProvenance with every member set. */
export type FieldOrigin = Required<FieldProvenanceInput>;

/** A merge result as plain data, the shape code that does not read field values (and tests) builds by hand. */
export interface MergeResult {
  /** Section-qualified path → value as set by the winning candidate. */
  fields: Record<string, unknown>;
  provenance: Record<string, FieldOrigin>;
  conflicts: Conflict[];
  /** Security refusals of invalid policies that reach here (invalid-objects.ts); absent when none does. */
  refusals?: IrRefusal[];
}

/** What mergePolicies returns: each effective field typed by its section's schema. */
export interface EffectivePolicy extends MergeResult {
  fields: EffectiveFields;
}

/** The merged fields of an edge or of one MCP target or AI provider on it, with where each came from. */
export type MergedFields = Pick<EffectivePolicy, 'fields' | 'provenance'>;

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
export function mergePolicies(
  section: Section,
  candidates: readonly Candidate[],
  into?: EffectivePolicy,
): EffectivePolicy {
  const out: EffectivePolicy = into ?? { fields: {}, provenance: {}, conflicts: [] };
  // Before any precedence: an invalid security policy closes what it reaches whatever would have won.
  for (const c of candidates) if (c.refusals) (out.refusals ??= []).push(...c.refusals);
  candidates = replaced(candidates);
  // Hot path (every rule of every route): candidates set few fields, so parallel arrays with a linear
  // lookup beat maps; only contested fields are sorted.
  const names: string[] = [];
  const lists: Candidate[][] = [];
  for (const c of candidates) {
    const values = c.values as FieldMap;
    for (const f of Object.keys(values)) {
      if (values[f] === undefined) continue;
      const i = names.indexOf(f);
      if (i >= 0) (lists[i] as Candidate[]).push(c);
      else {
        names.push(f);
        lists.push([c]);
      }
    }
  }
  const order = names.map((_, i) => i).sort((a, b) => ((names[a] as string) < (names[b] as string) ? -1 : 1));
  for (const i of order) {
    const f = names[i] as string;
    const all = lists[i] as Candidate[];
    const list = all.length === 1 ? all : dedupe(all).sort(comparePrecedence);
    const winner = list[0] as Candidate;
    const path = `${section}.${f}`;
    (out.fields as FieldMap)[path] = (winner.values as FieldMap)[f];
    const overridden: string[] = [];
    for (let i = 1; i < list.length; i++) {
      const l = list[i] as Candidate;
      overridden.push(l.source);
      if (l.policyKey && winner.policyKey && rank(l) === rank(winner) && l.policyKey !== winner.policyKey) {
        out.conflicts.push({
          policyKey: l.policyKey,
          targetIndex: l.targetIndex ?? 0,
          field: path,
          level: l.level,
          winner: winner.source,
        });
      }
    }
    out.provenance[path] = sharedOrigin(winner, overridden);
  }
  return out;
}

// Every rule a policy reaches gets the same provenance for the fields it wins: one frozen object per
// winning section object (a stored spec's, so it lives as long as the policy), level and overridden list.
// Most sections only ever win one way, so that origin is held directly and a map only for the others.
const origins = new WeakMap<object, FieldOrigin | Map<string, FieldOrigin>>();

function sharedOrigin(winner: Candidate, overridden: string[]): FieldOrigin {
  const held = origins.get(winner.values);
  if (held && !(held instanceof Map) && sameOrigin(held, winner, overridden)) return held;
  const o = Object.freeze({
    source: winner.source,
    level: winner.level,
    overridden: Object.freeze(overridden) as string[],
  });
  if (!held) {
    origins.set(winner.values, o);
    return o;
  }
  const m = held instanceof Map ? held : new Map([[originKey(held.source, held.level, held.overridden), held]]);
  if (m !== held) origins.set(winner.values, m);
  const key = originKey(o.source, o.level, overridden);
  const hit = m.get(key);
  if (hit) return hit;
  m.set(key, o);
  return o;
}

function sameOrigin(o: FieldOrigin, winner: Candidate, overridden: readonly string[]): boolean {
  return (
    o.source === winner.source &&
    o.level === winner.level &&
    o.overridden.length === overridden.length &&
    o.overridden.every((s, i) => s === overridden[i])
  );
}

function originKey(source: string, level: string, overridden: readonly string[]): string {
  return `${source}\u0000${level}\u0000${overridden.join('\u0000')}`;
}

/**
 * `strategy.merge: Replace`: the best Replace candidate's section stands whole against less specific ones,
 * which are dropped (not merged field by field); more specific candidates still merge over it.
 */
function replaced(candidates: readonly Candidate[]): readonly Candidate[] {
  let best: Candidate | undefined;
  for (const c of candidates) if (c.replace && (!best || comparePrecedence(c, best) < 0)) best = c;
  if (!best) return candidates;
  const floor = rank(best);
  return candidates.filter((c) => rank(c) >= floor);
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

/** The candidate a GwPolicy attachment contributes for one section, or undefined if it sets none. */
export function policyCandidate(a: Attachment, level: Level, section: Section): Candidate | undefined {
  if (a.refusals) return invalidCandidate(a, level, section, a.refusals);
  const values = a.sections[section];
  if (!values) return undefined;
  return attachmentCandidate(
    a,
    level,
    section === 'traffic' && a.override,
    a.spec.strategy?.merge === 'Replace',
    values,
  );
}

/** Settings that are not policy resources (a GwBackend's own `policies`, an MCP target's `policies`). */
export function inlineCandidate(source: string, level: Level, values: BackendFull | undefined): Candidate | undefined {
  if (!values) return undefined;
  return { source, level, created: '', order: source, override: false, values };
}

/** An invalid policy's candidate: no values, the refusals of the security fields it sets in `section`. */
function invalidCandidate(
  a: Attachment,
  level: Level,
  section: Section,
  refusals: readonly IrRefusal[],
): Candidate | undefined {
  const mine = refusals.filter((r) => r.field.startsWith(`spec.${section}.`));
  if (mine.length === 0) return undefined;
  const c = attachmentCandidate(a, level, false, false, {});
  c.refusals = mine;
  return c;
}

/**
 * A GwPolicy attachment's candidate: where it comes from and its place in the merge order. One literal, not a
 * spread of the origin: V8 took about 30 µs per spread here (a third of a full translation's merge time).
 */
function attachmentCandidate(
  a: Attachment,
  level: Level,
  override: boolean,
  replace: boolean,
  values: Candidate['values'],
): Candidate {
  return {
    source: a.source,
    policyKey: a.policy.key,
    targetIndex: a.targetIndex,
    level,
    created: a.created,
    order: a.policy.key,
    override,
    replace,
    values,
  };
}
