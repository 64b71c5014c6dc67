// Turns a CRD-style union (`{ mcp: {...} }`, exactly one key set) into the discriminated union the
// translator wants (`{ kind: 'mcp', mcp: {...} }`), using the same key lists as the CRD oneOf rules.
import type { GwBackendSpec } from './backend.js';
import { BACKEND_TYPES } from './backend.js';
import type { LLMProvider } from './providers.js';
import { PROVIDER_VENDORS } from './providers.js';
import type { VirtualModel } from './model.js';
import { VIRTUAL_MODEL_STRATEGIES } from './model.js';

export type Variant<T, K extends keyof T> = { [P in K]: { kind: P } & { [Q in P]-?: NonNullable<T[Q]> } }[K];

/** The one key of `keys` set on `obj`, as `{ kind, [kind]: value }`; undefined unless exactly one is set. */
export function variantOf<T extends object, const K extends keyof T & string>(
  obj: T,
  keys: readonly K[],
): Variant<T, K> | undefined {
  const set = keys.filter((k) => obj[k] !== undefined && obj[k] !== null);
  if (set.length !== 1) return undefined;
  const kind = set[0]!;
  return { kind, [kind]: obj[kind] } as unknown as Variant<T, K>;
}

export const backendVariant = (spec: GwBackendSpec) => variantOf(spec, BACKEND_TYPES);
export const providerVariant = (provider: LLMProvider) => variantOf(provider, PROVIDER_VENDORS);
export const virtualModelVariant = (vm: VirtualModel) => variantOf(vm, VIRTUAL_MODEL_STRATEGIES);
