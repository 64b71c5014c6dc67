// The one place a Gw object's spec (GwPolicy, GwBackend, GwModel, GwParameters) becomes its src/api schema type.
// putObject checks every Gw object against its schema (validate.ts); only a spec the schema accepted is handed
// out typed, and as the check saw it (explicit nulls dropped), so code past this point reads it with plain
// property access and never sees input the schema did not accept.
import { kindInfo } from '../../api/kinds.js';
import type { GwKind, GwSpecs } from './gw-types.js';
import type { StoredObject } from './types.js';

/** A valid Gw object and its spec as the schema's type. */
export interface GwObject<K extends GwKind> {
  entry: StoredObject;
  spec: GwSpecs[K];
}

/** The spec of a valid `kind` object as the schema's type; undefined for another kind or an invalid object. */
export function gwSpec<K extends GwKind>(kind: K, e: StoredObject | undefined): GwSpecs[K] | undefined {
  return e && e.kind === kind && e.problems.length === 0 ? schemaChecked(kind, e.obj.spec) : undefined;
}

const checked = new WeakMap<object, unknown>();

/**
 * A spec validateManifest found nothing wrong with, as its schema type. gwSpec hands out only such specs;
 * validate-gw.ts checks one further while the object is being stored (it has no problems yet only because
 * that is not done).
 */
export function schemaChecked<K extends GwKind>(kind: K, spec: unknown): GwSpecs[K] {
  if (spec === null || typeof spec !== 'object') return spec as GwSpecs[K];
  let v = checked.get(spec);
  // A TypeBox schema is a plain JSON Schema object: its properties, items and additionalProperties are read here.
  if (v === undefined) checked.set(spec, (v = withoutNulls((kindInfo(kind)?.spec ?? {}) as SchemaNode, spec)));
  return v as GwSpecs[K];
}

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  additionalProperties?: SchemaNode | boolean;
  nullable?: boolean;
}

/**
 * The value as the schema check saw it: a null where the schema declares a field (none is nullable) is
 * dropped, as the API server drops it before storing; free-form values keep theirs. Parts without such a
 * null keep their identity.
 */
function withoutNulls(node: SchemaNode, v: unknown): unknown {
  if (Array.isArray(v)) {
    const items = node.items;
    if (!items) return v;
    const out = v.map((x: unknown) => withoutNulls(items, x));
    return out.some((x, i) => x !== v[i]) ? out : v;
  }
  if (v === null || typeof v !== 'object') return v;
  const extra = typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
  let out: Record<string, unknown> | undefined;
  for (const [k, x] of Object.entries(v)) {
    const child = node.properties?.[k] ?? extra;
    if (!child) continue;
    const y = x === null && !child.nullable ? undefined : withoutNulls(child, x);
    if (y === x) continue;
    out ??= { ...(v as Record<string, unknown>) };
    if (y === undefined) delete out[k];
    else out[k] = y;
  }
  return out ?? v;
}
