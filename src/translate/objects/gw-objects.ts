// The one place a Gw object's spec (GwPolicy, GwBackend, GwModel, GwParameters) becomes its src/api schema type.
// putObject checks every Gw object against its schema (validate.ts); only a spec the schema accepted is handed
// out typed, so code past this point reads it with plain property access and never sees invalid input.
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

/**
 * A spec validateManifest found nothing wrong with, as its schema type: for validate-gw.ts, which checks such a
 * spec further while the object is being stored (and has no problems yet only because it is not done).
 */
export function schemaChecked<K extends GwKind>(_kind: K, spec: unknown): GwSpecs[K] {
  return spec as GwSpecs[K];
}
