// GwParameters resolution: class-level and gateway-level parameters become one set of typed fields
// (gateway wins) plus the ordered overlays per generated kind (class first, gateway last).
import type { GwParametersSpec } from '../api/parameters.js';
import type { Json, JsonObject } from './json.js';
import { getOwn, isObject, setOwn } from './json.js';

export const OVERLAY_FIELDS = [
  'deployment',
  'daemonSet',
  'service',
  'serviceAccount',
  'podDisruptionBudget',
  'horizontalPodAutoscaler',
] as const;
export type OverlayField = (typeof OVERLAY_FIELDS)[number];
export type Overlay = NonNullable<GwParametersSpec['deployment']>;
export type TypedParameters = Omit<GwParametersSpec, OverlayField>;

export interface ParametersInput {
  metadata: { name: string; namespace?: string };
  spec: GwParametersSpec;
}

/** An overlay and where it came from, so a failing patch names its GwParameters object and field. */
export interface SourcedOverlay {
  overlay: Overlay;
  object: string;
  path: string;
}

export interface ResolvedParameters {
  typed: TypedParameters;
  overlays: Record<OverlayField, SourcedOverlay[]>;
}

export function parametersKey(p: ParametersInput): string {
  return p.metadata.namespace
    ? `GwParameters ${p.metadata.namespace}/${p.metadata.name}`
    : `GwParameters ${p.metadata.name}`;
}

type EnvVar = NonNullable<GwParametersSpec['env']>[number];

/** Later entries replace earlier ones with the same name, in place; new names are appended. */
export function mergeEnv<T extends { name: string }>(...lists: ReadonlyArray<readonly T[] | undefined>): T[] {
  const out: T[] = [];
  for (const list of lists) {
    for (const e of list ?? []) {
      const at = out.findIndex((o) => o.name === e.name);
      if (at >= 0) out[at] = e;
      else out.push(e);
    }
  }
  return out;
}

/** Deep merge of plain objects; `over` wins on scalars and lists. */
export function deepMerge(base: JsonObject, over: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = getOwn(out, k);
    setOwn(out, k, isObject(b) && isObject(v) ? deepMerge(b, v) : (v as Json));
  }
  return out;
}

function typedOf(spec: GwParametersSpec): TypedParameters {
  const out: Record<string, unknown> = { ...spec };
  for (const f of OVERLAY_FIELDS) delete out[f];
  return out as TypedParameters;
}

/**
 * Merge order: class typed fields < gateway typed fields < class overlays < gateway overlays.
 * Typed objects merge field by field, `env` merges by name, other lists are replaced.
 * `modelCatalog` is taken from gateway-level parameters only (its ConfigMaps live in the gateway's namespace).
 */
export function resolveParameters(classParams?: ParametersInput, gatewayParams?: ParametersInput): ResolvedParameters {
  const classTyped = classParams ? typedOf(classParams.spec) : {};
  const gatewayTyped = gatewayParams ? typedOf(gatewayParams.spec) : {};
  delete (classTyped as Record<string, unknown>).modelCatalog;
  const typed = deepMerge(classTyped as JsonObject, gatewayTyped as JsonObject) as TypedParameters;
  const env = mergeEnv<EnvVar>(classTyped.env, gatewayTyped.env);
  if (env.length > 0) typed.env = env;

  const overlays = Object.fromEntries(OVERLAY_FIELDS.map((f) => [f, [] as SourcedOverlay[]])) as Record<
    OverlayField,
    SourcedOverlay[]
  >;
  for (const p of [classParams, gatewayParams]) {
    if (!p) continue;
    for (const f of OVERLAY_FIELDS) {
      const overlay = p.spec[f];
      if (overlay) overlays[f].push({ overlay, object: parametersKey(p), path: `spec.${f}` });
    }
  }
  return { typed, overlays };
}
