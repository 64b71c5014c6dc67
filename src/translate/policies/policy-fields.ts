// A merge result as the IR's PolicyFields: each effective field's value as canonical JSON text with its
// provenance. Provenance for `gw explain` (Route.effective, Listener.frontend, BackendRef.policy); the proxy
// decides nothing from it.
import type { PolicyFieldsInput } from '../../ir/types.js';
import { stableStringify } from '../objects/read.js';
import type { MergeResult } from './policy-merge.js';

// Policy values are objects inside stored specs, shared by every rule they reach; their canonical text
// is a pure function of the object, so it is cached by identity (objects are never mutated in place).
const canonical = new WeakMap<object, string>();

function canonicalText(v: unknown): string {
  if (typeof v !== 'object' || v === null) return stableStringify(v);
  let t = canonical.get(v);
  if (t === undefined) canonical.set(v, (t = stableStringify(v)));
  return t;
}

export function fieldsOf(m: MergeResult): PolicyFieldsInput {
  const fields: Record<string, string> = {};
  for (const k of Object.keys(m.fields)) fields[k] = canonicalText(m.fields[k]);
  return { fields, provenance: m.provenance };
}
