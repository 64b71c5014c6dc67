// What the translator guarantees about the IR it builds, beyond the generated permissive `*Input` types
// (src/ir/types.ts, the only IR declarations): a snapshot always lists its resources, and each resource
// sets exactly the member its `kind` names. Consumers of a translation (controller, explain, goldens)
// read these; every field inside a resource keeps the generated optionality.
import type { ResourceInput, SnapshotInput } from '../ir/types.js';

export type ResourceKind = NonNullable<ResourceInput['kind']>;

/** One IR resource as built: `{ kind: 'route', route: RouteInput }` and so on. */
export type BuiltResource = {
  [K in ResourceKind]: { kind: K } & { [P in K]: NonNullable<ResourceInput[P]> };
}[ResourceKind];

export interface BuiltSnapshot extends SnapshotInput {
  version: string;
  resources: BuiltResource[];
}

/** An IR value whose `name` the translator always sets (targets, providers, routes it reads back). */
export type Named<T extends { name?: string }> = T & { name: string };
