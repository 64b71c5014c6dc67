// List ordering after a strategic merge, as kubectl orders it: patch items in patch (or
// $setElementOrder) order, server-only items in live order, the two interleaved by live order.
import type { Json, JsonObject } from './json.js';
import { isObject } from './json.js';
import { SmpError } from './smp-error.js';

export type ElemKind = 'object' | 'primitive';

function keyOf(item: Json, mergeKey: string, kind: ElemKind): Json | undefined {
  if (kind === 'object') return isObject(item) ? item[mergeKey] : undefined;
  return item;
}

/** Position of `item` in `list`, comparing merge-key values for objects and values for primitives. */
export function indexIn(list: readonly Json[], item: Json, mergeKey: string, kind: ElemKind): number {
  const k = keyOf(item, mergeKey, kind);
  return list.findIndex((v) => keyOf(v, mergeKey, kind) === k);
}

/** Same-value comparison with Go `==` semantics on JSON scalars (maps never compare equal). */
export function scalarEqual(a: Json | undefined, b: Json | undefined): boolean {
  return a === b;
}

function requireMergeKey(list: readonly Json[], mergeKey: string, path: string): void {
  for (const item of list) {
    if (!isObject(item)) throw new SmpError(path, `must be a list of objects, got an item ${JSON.stringify(item)}`);
    if (!(mergeKey in item)) throw new SmpError(path, `item ${JSON.stringify(item)} has no merge key "${mergeKey}"`);
  }
}

// kubectl sorts with Go's sort.SliceStable (insertion sort for lists up to 20 items) and a comparator that
// says "less" whenever either item is missing from `order`; the same insertion sort gives the same result.
function sortByOrder(toSort: Json[], order: readonly Json[], mergeKey: string, kind: ElemKind): Json[] {
  const out = [...toSort];
  const less = (a: Json, b: Json): boolean => {
    const ia = indexIn(order, a, mergeKey, kind);
    if (ia >= 0) {
      const ib = indexIn(order, b, mergeKey, kind);
      if (ib >= 0) return ia < ib;
    }
    return true;
  };
  for (let i = 1; i < out.length; i++) {
    for (let j = i; j > 0 && less(out[j] as Json, out[j - 1] as Json); j--) {
      const t = out[j] as Json;
      out[j] = out[j - 1] as Json;
      out[j - 1] = t;
    }
  }
  return out;
}

function normalizeSliceOrder(
  toSort: Json[],
  order: readonly Json[],
  mergeKey: string,
  kind: ElemKind,
  path: string,
): Json[] {
  let deletes: Json[] = [];
  if (kind === 'object') {
    requireMergeKey(toSort, mergeKey, path);
    requireMergeKey(order, mergeKey, path);
    deletes = toSort.filter((v) => (v as JsonObject)['$patch'] === 'delete');
    toSort = toSort.filter((v) => (v as JsonObject)['$patch'] !== 'delete');
  }
  return [...sortByOrder(toSort, order, mergeKey, kind), ...deletes];
}

/** Splits `merged` into items present in `by` (by merge key or value) and the rest. */
export function partitionByPresence(
  merged: readonly Json[],
  by: readonly Json[],
  mergeKey: string,
  path: string,
): [Json[], Json[]] {
  const inList: Json[] = [];
  const rest: Json[] = [];
  for (const v of merged) {
    let found: boolean;
    if (mergeKey === '') {
      found = by.some((b) => scalarEqual(b, v));
    } else {
      if (!isObject(v)) throw new SmpError(path, `must be a list of objects, got an item ${JSON.stringify(v)}`);
      if (!(mergeKey in v)) throw new SmpError(path, `item ${JSON.stringify(v)} has no merge key "${mergeKey}"`);
      const key = v[mergeKey];
      found = by.some((b) => {
        if (!isObject(b)) throw new SmpError(path, `must be a list of objects, got an item ${JSON.stringify(b)}`);
        return mergeKey in b && scalarEqual(b[mergeKey], key);
      });
    }
    (found ? inList : rest).push(v);
  }
  return [inList, rest];
}

/** Orders `patchItems` by `patchOrder` and `serverOnly` by `serverOrder`, then interleaves them by `serverOrder`. */
export function normalizeElementOrder(
  patchItems: Json[],
  serverOnly: Json[],
  patchOrder: readonly Json[],
  serverOrder: readonly Json[],
  mergeKey: string,
  kind: ElemKind,
  path: string,
): Json[] {
  const right = normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind, path);
  const left = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind, path);
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    const li = indexIn(serverOrder, left[i] as Json, mergeKey, kind);
    const ri = indexIn(serverOrder, right[j] as Json, mergeKey, kind);
    if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++] as Json);
    else out.push(right[j++] as Json);
  }
  return [...out, ...left.slice(i), ...right.slice(j)];
}
