// Refusals as the IR carries them (Route/Listener/BackendRef `refusals`): from what a merge made
// effective (only the winning GwPolicy's field is in effect) and from objects a route reaches whole.
import type { Refusal } from '../ir/types.js';
import { refusalsOf, type CoveredKind, type FieldRefusal } from './index.js';

// Objects are never mutated in place (store.ts), so results are cached by value identity per gateway pass and beyond.
// Nearly every value is only ever checked one way (one field of one kind), so that answer is held on its own
// and a map only for a value checked more ways; a value with no refused field shares one empty list.
type Answers = { key: string; refusals: FieldRefusal[] } | Map<string, FieldRefusal[]>;
const byValue = new WeakMap<object, Answers>();
const none: FieldRefusal[] = [];
Object.freeze(none);

function cached(key: string, value: unknown, compute: () => FieldRefusal[]): FieldRefusal[] {
  if (typeof value !== 'object' || value === null) return compute();
  const held = byValue.get(value);
  if (held === undefined) {
    const refusals = answer(compute());
    byValue.set(value, { key, refusals });
    return refusals;
  }
  if (!(held instanceof Map)) {
    if (held.key === key) return held.refusals;
    const refusals = answer(compute());
    byValue.set(
      value,
      new Map([
        [held.key, held.refusals],
        [key, refusals],
      ]),
    );
    return refusals;
  }
  let refusals = held.get(key);
  if (!refusals) held.set(key, (refusals = answer(compute())));
  return refusals;
}

const answer = (list: FieldRefusal[]): FieldRefusal[] => (list.length ? list : none);

// One IR refusal per refused field and source, shared by every rule and listener the source reaches.
const withSource = new WeakMap<FieldRefusal, Map<string, IrRefusal>>();

function sourced(r: FieldRefusal, source: string): IrRefusal {
  let m = withSource.get(r);
  if (!m) withSource.set(r, (m = new Map()));
  let out = m.get(source);
  if (!out) m.set(source, (out = Object.freeze({ ...r, source })));
  return out;
}

/** gw.ir.v1.Refusal, as the translator builds it (every field set). */
export type IrRefusal = Refusal;

interface Merged {
  fields: Record<string, unknown>;
  provenance: Record<string, { source: string } | undefined>;
  /** Invalid security policies that reached the merge (src/translate/policies/invalid-objects.ts). */
  refusals?: readonly IrRefusal[];
}

/**
 * Refused fields among merged `section.field` values that a GwPolicy set (the source names it), and the
 * security fields of invalid policies that reached the merge.
 */
export function mergedRefusals(m: Merged): IrRefusal[] {
  const out: IrRefusal[] = [...(m.refusals ?? [])];
  for (const [key, value] of Object.entries(m.fields)) {
    const source = m.provenance[key]?.source ?? '';
    if (!source.startsWith('GwPolicy ')) continue;
    const dot = key.indexOf('.');
    const refusals = cached(`GwPolicy:${key}`, value, () =>
      refusalsOf('GwPolicy', { [key.slice(0, dot)]: { [key.slice(dot + 1)]: value } }),
    );
    for (const r of refusals) out.push(sourced(r, source));
  }
  return out;
}

/** Every refused field an object sets, with the object as source (`GwBackend ns/name`). */
export function objectRefusals(kind: CoveredKind, source: string, spec: unknown): IrRefusal[] {
  return cached(kind, spec, () => refusalsOf(kind, spec)).map((r) => sourced(r, source));
}

/** One list, sorted by field then source, without repeats. */
export function uniqueRefusals(list: readonly IrRefusal[]): IrRefusal[] {
  // Most rules have none or one: no map and no keys for them (this runs for every IR route and listener).
  if (list.length < 2) return [...list];
  const seen = new Map<string, IrRefusal>();
  for (const r of list) seen.set(`${r.field}\u0000${r.source}`, r);
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
}
