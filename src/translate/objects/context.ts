// Read access to the store during one gateway's translation. Every key read is recorded (even when
// the object is missing) so affectedGateways can tell which gateways a change can alter.
import type { Problem } from '../../problem.js';
import { gwSpec, type GwObject } from './gw-objects.js';
import type { GwKind } from './gw-types.js';
import { getObject, indexed, type Store } from './store.js';
import { objectKey, type Kind, type StoredObject } from './types.js';

export interface TranslateOptions {
  /** GatewayClasses whose spec.controllerName equals this are ours. */
  controllerName: string;
  /** RFC 3339 time stamped on conditions; passed in so output is reproducible. */
  now: string;
  /** Gateway namespaces limited by discoveryNamespaceSelectors (OR of selectors); empty = all. */
  discoveryNamespaceSelectors?: Record<string, unknown>[];
  /** Translate GwModels (chart value agentgatewayModels.enabled); off by default. */
  enableModels?: boolean;
  /** Resolve InferencePools (chart value inferenceExtension.enabled); off: a reference to one does not resolve. */
  enableInferenceExtension?: boolean;
  /** `--gateway-class-parameters-refs`: class name → its GwParameters when the GatewayClass names none. */
  classParametersRefs?: Record<string, { name: string; namespace: string }>;
  /** `--istio-auto-enabled`: this class's Gateways have istio on unless their GwParameters set istio.enabled. */
  istioAutoEnabledClass?: string;
}

export const DEFAULT_CONTROLLER_NAME = 'gw.dev/gateway-controller';

export interface Ctx {
  store: Store;
  options: TranslateOptions;
  deps: Set<string>;
  /**
   * Where reads are recorded besides `deps`: one route's own set while it is translated (so it can be
   * reused when none of them changed, route-reuse.ts), else the gateway-level set.
   */
  scope: Set<string>;
  problems: Problem[];
  /** Per-translation memo for values derived from one object (attachments, translated backends). */
  memo: Map<string, { value: unknown; deps: Set<string> }>;
  /** The Gateway being translated (unset outside a gateway's translation, e.g. policy status). */
  gateway?: StoredObject;
}

/** Computes once per translation; a later use records the dependencies the computation read. */
export function memo<T>(ctx: Ctx, key: string, compute: () => T): T {
  const hit = ctx.memo.get(key);
  if (hit) {
    for (const d of hit.deps) ctx.scope.add(d);
    return hit.value as T;
  }
  const deps = new Set<string>();
  const value = inScope(ctx, deps, compute);
  for (const d of deps) ctx.scope.add(d);
  ctx.memo.set(key, { value, deps });
  return value;
}

/** Runs `f` recording its reads into `deps` (as well as `ctx.deps`). */
export function inScope<T>(ctx: Ctx, deps: Set<string>, f: () => T): T {
  const outer = ctx.scope;
  ctx.scope = deps;
  try {
    return f();
  } finally {
    ctx.scope = outer;
  }
}

export function newCtx(store: Store, options: TranslateOptions): Ctx {
  return { store, options, deps: new Set(), scope: new Set(), problems: [], memo: new Map() };
}

function dep(ctx: Ctx, k: string): void {
  ctx.deps.add(k);
  ctx.scope.add(k);
}

/** A valid object, or undefined when missing or invalid (invalid objects are reported elsewhere). */
export function read(ctx: Ctx, kind: Kind, key: string): StoredObject | undefined {
  dep(ctx, objectKey(kind, key));
  const e = getObject(ctx.store, kind, key);
  return e && e.problems.length === 0 ? e : undefined;
}

/** `read` for a Gw kind: the valid object with its spec as the schema's type (gw-objects.ts). */
export function readGw<K extends GwKind>(ctx: Ctx, kind: K, key: string): GwObject<K> | undefined {
  const entry = read(ctx, kind, key);
  const spec = gwSpec(kind, entry);
  return entry && spec ? { entry, spec } : undefined;
}

/** Like read, but also returns invalid objects, for callers that must tell missing from invalid. */
export function readAny(ctx: Ctx, kind: Kind, key: string): StoredObject | undefined {
  dep(ctx, objectKey(kind, key));
  return getObject(ctx.store, kind, key);
}

export function lookup(ctx: Ctx, idx: Parameters<typeof indexed>[1], k: string): string[] {
  dep(ctx, `index:${idx}:${k}`);
  return indexed(ctx.store, idx, k);
}
