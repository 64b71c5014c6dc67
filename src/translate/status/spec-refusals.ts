// The coverage table's refusals of a stored spec, computed once per spec object: a re-translated gateway
// reassembles the status of every policy and backend it mentions, and classifying every field again was
// most of a one-policy change. Stored specs are never mutated in place (store.ts), so identity is a safe key.
import { refusalsOf, type FieldRefusal } from '../../coverage/index.js';

type SpecKind = 'GwPolicy' | 'GwBackend' | 'GwParameters';

const byKind: Record<SpecKind, WeakMap<object, readonly FieldRefusal[]>> = {
  GwPolicy: new WeakMap(),
  GwBackend: new WeakMap(),
  GwParameters: new WeakMap(),
};

/** `refusalsOf(kind, spec)`, shared between calls with the same spec object (callers must not mutate it). */
export function specRefusals(kind: SpecKind, spec: object): readonly FieldRefusal[] {
  const cache = byKind[kind];
  let hit = cache.get(spec);
  if (hit === undefined) cache.set(spec, (hit = refusalsOf(kind, spec)));
  return hit;
}
