// Issue 31, "one rule, everywhere": a GwPolicy, GwBackend or GwModel that is invalid (its schema, a CEL rule
// that does not compile, a structural rule) is not applied, but if it sets a security-relevant field (the
// coverage table's `security`) it keeps its attachment: each of those fields becomes a security refusal on
// what the object targets, so routes answer 503 policy_not_enforced and listeners close connections instead
// of serving without the protection the object was meant to add. Other invalid objects are simply left out.
import { securityFieldsSet } from '../../coverage/index.js';
import type { IrRefusal } from '../../coverage/effective.js';
import { displayName, type StoredObject } from '../objects/types.js';

export type GuardedKind = 'GwPolicy' | 'GwBackend' | 'GwModel';

// Objects are never mutated in place (store.ts): one answer per stored entry.
const held = new WeakMap<StoredObject, IrRefusal[]>();
const invalidRefusals = new WeakSet<IrRefusal>();
/** The path as written, for a refusal whose field the object misspelt (`spec.traffic.jwtAuthentcation`). */
const misspelt = new WeakMap<IrRefusal, string>();

/**
 * The security refusals an invalid object stands for: one per security field it sets (`spec.traffic.csrf`),
 * or none when it is valid or sets no such field.
 */
export function invalidObjectRefusals(kind: GuardedKind, e: StoredObject): IrRefusal[] {
  if (e.problems.length === 0) return [];
  let out = held.get(e);
  if (out) return out;
  const first = e.problems[0];
  const more = e.problems.length > 1 ? ` and ${e.problems.length - 1} more` : '';
  const why = first ? `${first.path}: ${first.message}${more}` : '';
  const reason = `the ${kind} is invalid (${why}); this security setting cannot be enforced as written, so what it targets refuses traffic until it is fixed`;
  const source = displayName(kind, e.key);
  out = securityFieldsSet(kind, e.obj.spec).map(({ field, written }) => {
    const r: IrRefusal = Object.freeze({
      field,
      source,
      reason: written ? `${written} is taken as ${field}: ${reason}` : reason,
      security: true,
    });
    invalidRefusals.add(r);
    if (written) misspelt.set(r, written);
    return r;
  });
  held.set(e, out);
  return out;
}

/** Whether a refusal stands for an invalid object (the route's status names those on its own). */
export function isInvalidObjectRefusal(r: IrRefusal): boolean {
  return invalidRefusals.has(r);
}

/** The field a refusal closes, for status messages: with the path as written when the object misspelt it. */
export function closedFieldName(r: IrRefusal): string {
  const written = misspelt.get(r);
  return written ? `${r.field} (written ${written})` : r.field;
}
