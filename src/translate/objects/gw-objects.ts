// The one place a Gw object (GwPolicy, GwBackend, GwModel, GwParameters) becomes its schema type. putObject
// checks every Gw object against its src/api schema (validate.ts); only an object without problems is handed
// out typed, so code past this point reads the spec with plain property access and never sees invalid input.
import { read, type Ctx } from './context.js';
import type { GwKind, GwSpecs } from './gw-types.js';
import type { StoredObject } from './types.js';

/** A valid Gw object and its spec as the schema's type. */
export interface GwObject<K extends GwKind> {
  entry: StoredObject;
  spec: GwSpecs[K];
}

/** The spec of a valid `kind` object as the schema's type; undefined for another kind or an invalid object. */
export function gwSpec<K extends GwKind>(kind: K, e: StoredObject | undefined): GwSpecs[K] | undefined {
  return e && e.kind === kind && e.problems.length === 0 ? (e.obj.spec as GwSpecs[K]) : undefined;
}

/** `read` for a Gw kind: the valid object with its typed spec; undefined when it is missing or invalid. */
export function readGw<K extends GwKind>(ctx: Ctx, kind: K, key: string): GwObject<K> | undefined {
  const entry = read(ctx, kind, key);
  const spec = gwSpec(kind, entry);
  return entry && spec ? { entry, spec } : undefined;
}
