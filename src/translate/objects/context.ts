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
}

export const DEFAULT_CONTROLLER_NAME = 'gw.dev/gateway-controller';

export interface Ctx {
  store: Store;
  options: TranslateOptions;
  deps: Set<string>;
  problems: Problem[];
  /** Per-translation memo for values derived from one object (attachments, translated backends). */
  memo: Map<string, unknown>;
}

/** Computes once per translation; the dependencies recorded by the first computation cover later uses. */
export function memo<T>(ctx: Ctx, key: string, compute: () => T): T {
  if (ctx.memo.has(key)) return ctx.memo.get(key) as T;
  const v = compute();
  ctx.memo.set(key, v);
  return v;
}

export function newCtx(store: Store, options: TranslateOptions): Ctx {
  return { store, options, deps: new Set(), problems: [], memo: new Map() };
}

/** A valid object, or undefined when missing or invalid (invalid objects are reported elsewhere). */
export function read(ctx: Ctx, kind: Kind, key: string): StoredObject | undefined {
  ctx.deps.add(objectKey(kind, key));
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
  ctx.deps.add(objectKey(kind, key));
  return getObject(ctx.store, kind, key);
}

export function lookup(ctx: Ctx, idx: Parameters<typeof indexed>[1], k: string): string[] {
  ctx.deps.add(`index:${idx}:${k}`);
  return indexed(ctx.store, idx, k);
}
