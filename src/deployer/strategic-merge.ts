// Kubernetes strategic merge patch, applied the way `kubectl patch --type strategic` applies it
// (k8s.io/apimachinery strategicpatch with MergeParallelList and IgnoreUnmatchedNulls), including
// its ordering rules, so overlays behave exactly as users know them from kubectl and kustomize.
import { fieldPath } from '../problem.js';
import type { Json, JsonObject } from './json.js';
import { deepClone, getOwn, isObject, setOwn } from './json.js';
import { SmpError } from './smp-error.js';
import type { ElemKind } from './smp-order.js';
import { normalizeElementOrder, partitionByPresence, scalarEqual } from './smp-order.js';
import type { SmpField, SmpType } from './smp-schema.js';
import { untyped } from './smp-schema.js';

export { SmpError } from './smp-error.js';

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM = '$deleteFromPrimitiveList';
const SET_ORDER = '$setElementOrder';

type Path = ReadonlyArray<string | number>;

/**
 * Applies `patch` to `original` by strategic-merge semantics for objects of `schema`.
 * Inputs are not modified. Throws SmpError (with the field path) for a malformed patch.
 */
export function strategicMergePatch(original: JsonObject, patch: JsonObject, schema: SmpType): JsonObject {
  return mergeMap(deepClone(original), deepClone(patch), schema, []);
}

function jsonType(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'list';
  return typeof v === 'object' ? 'map' : typeof v;
}

function lookup(schema: SmpType, key: string): SmpField {
  return Object.hasOwn(schema.fields, key) ? (schema.fields[key] as SmpField) : {};
}

function extractKey(key: string, prefix: string, path: Path): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw new SmpError(fieldPath(path), `directive key "${key}" must have the form ${prefix}/<field>`);
  }
  return key.slice(slash + 1);
}

/** Drops every map carrying a `$patch` directive (and list items that are such maps). */
function removeDirectives(v: Json): { keep: boolean; value: Json } {
  if (Array.isArray(v)) {
    const out: Json[] = [];
    for (const item of v) {
      const r = removeDirectives(item);
      if (r.keep) out.push(r.value);
    }
    return { keep: true, value: out };
  }
  if (isObject(v)) {
    if (PATCH in v) return { keep: false, value: null };
    for (const k of Object.keys(v)) {
      const r = removeDirectives(v[k] as Json);
      if (r.keep) setOwn(v, k, r.value);
      else delete v[k];
    }
  }
  return { keep: true, value: v };
}

function discardNulls(v: Json): void {
  if (Array.isArray(v)) v.forEach(discardNulls);
  else if (isObject(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else discardNulls(v[k] as Json);
    }
  }
}

function setPatchValue(original: JsonObject, k: string, pv: Json): void {
  discardNulls(pv);
  const r = removeDirectives(pv);
  if (r.keep) setOwn(original, k, r.value);
  else delete original[k];
}

function mergeMap(original: JsonObject | undefined, patch: JsonObject, schema: SmpType, path: Path): JsonObject {
  if (PATCH in patch) {
    const directive = patch[PATCH];
    if (directive === 'replace') {
      delete patch[PATCH];
      return patch;
    }
    if (directive === 'delete') return {};
    throw new SmpError(fieldPath([...path, PATCH]), `must be "replace" or "delete", got ${JSON.stringify(directive)}`);
  }
  const out = original ?? {};
  applyRetainKeys(out, patch, path);
  applySetElementOrder(out, patch, schema, path);

  for (const [key, pv] of Object.entries(patch)) {
    let k = key;
    let isDeleteList = false;
    if (key.startsWith(DELETE_FROM)) {
      k = extractKey(key, DELETE_FROM, path);
      isDeleteList = true;
    }
    if (pv === null) {
      delete out[k];
      continue;
    }
    const ov = getOwn(out, k);
    if (ov === undefined || jsonType(ov) !== jsonType(pv)) {
      if (!isDeleteList) setPatchValue(out, k, pv);
      continue;
    }
    const field = lookup(schema, k);
    if (isObject(ov) && isObject(pv)) {
      setOwn(out, k, field.strategy === 'replace' ? pv : mergeMap(ov, pv, field.type ?? untyped, [...path, k]));
    } else if (Array.isArray(ov) && Array.isArray(pv)) {
      setOwn(out, k, mergeListField(ov, pv, field, isDeleteList, [...path, k]));
    } else {
      setOwn(out, k, pv);
    }
  }
  return out;
}

function applyRetainKeys(original: JsonObject, patch: JsonObject, path: Path): void {
  if (!(RETAIN_KEYS in patch)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  const where = fieldPath([...path, RETAIN_KEYS]);
  if (!Array.isArray(list)) throw new SmpError(where, `must be a list of field names, got ${JSON.stringify(list)}`);
  const keep = new Set(list.filter((v): v is string => typeof v === 'string'));
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM) || k.startsWith(SET_ORDER)) continue;
    if (!keep.has(k)) throw new SmpError(where, `must list every field the patch sets, and "${k}" is missing`);
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

function elementKind(lists: ReadonlyArray<readonly Json[]>, path: Path): ElemKind | undefined {
  let seen: string | undefined;
  for (const list of lists) {
    for (const v of list) {
      const t = jsonType(v);
      if (t === 'list') throw new SmpError(fieldPath(path), 'lists of lists cannot be merged');
      if (t === 'null') throw new SmpError(fieldPath(path), 'a merged list cannot contain null');
      if (seen !== undefined && seen !== t) {
        throw new SmpError(fieldPath(path), `list items must all have one type, got ${seen} and ${t}`);
      }
      seen = t;
    }
  }
  if (seen === undefined) return undefined;
  return seen === 'map' ? 'object' : 'primitive';
}

function mergeListField(original: Json[], patch: Json[], field: SmpField, isDeleteList: boolean, path: Path): Json[] {
  // A $deleteFromPrimitiveList directive deletes whatever the field's strategy (as kubectl 1.33 does).
  if (field.strategy === 'merge' || isDeleteList) {
    return mergeList(original, patch, field.type ?? untyped, field.mergeKey ?? '', isDeleteList, path);
  }
  return patch;
}

function mergeList(
  original: Json[],
  patch: Json[],
  itemType: SmpType,
  mergeKey: string,
  isDeleteList: boolean,
  path: Path,
): Json[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind([original, patch], path) as ElemKind;
  let merged: Json[];
  let server = original;
  let patchItems = patch;
  if (kind === 'primitive') {
    if (isDeleteList) return original.filter((v) => !patch.some((d) => scalarEqual(d, v)));
    merged = dedupeScalars([...original, ...patch]);
  } else {
    if (mergeKey === '') throw new SmpError(fieldPath(path), 'a list of objects without a merge key cannot be merged');
    [server, patchItems] = applyListDirectives(original, patch, mergeKey, path);
    merged = mergeByKey([...server], patchItems, mergeKey, itemType, path);
  }
  const [inPatch, serverOnly] = partitionByPresence(
    merged,
    patchItems,
    kind === 'object' ? mergeKey : '',
    fieldPath(path),
  );
  return normalizeElementOrder(
    inPatch,
    serverOnly,
    patchItems,
    server,
    kind === 'object' ? mergeKey : '',
    kind,
    fieldPath(path),
  );
}

// Go's deduplicateScalars moves the last item into each duplicate's slot; the order it leaves is
// later normalised, but the moves decide which items are "patch" items, so it is mirrored here.
function dedupeScalars(s: Json[]): Json[] {
  let length = s.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (scalarEqual(s[i], s[j])) {
        s[j] = s[length] as Json;
        s.length = length;
        length--;
        j--;
      }
    }
  }
  return s;
}

/** Handles `$patch` items of a merged list: returns the live list after deletions and the remaining patch items. */
function applyListDirectives(original: Json[], patch: Json[], mergeKey: string, path: Path): [Json[], Json[]] {
  const rest: Json[] = [];
  let replace = false;
  let server = original;
  patch.forEach((item, i) => {
    const v = item as JsonObject;
    if (!(PATCH in v)) {
      rest.push(v);
      return;
    }
    const directive = v[PATCH];
    if (directive === 'delete') {
      if (!(mergeKey in v))
        throw new SmpError(fieldPath([...path, i]), `a $patch: delete item needs the merge key "${mergeKey}"`);
      const key = v[mergeKey];
      server = server.filter((o) => !(isObject(o) && mergeKey in o && scalarEqual(o[mergeKey], key)));
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw new SmpError(fieldPath([...path, i, PATCH]), 'merge is not supported on a list item');
    } else {
      throw new SmpError(
        fieldPath([...path, i, PATCH]),
        `must be "replace" or "delete", got ${JSON.stringify(directive)}`,
      );
    }
  });
  return replace ? [rest, []] : [server, rest];
}

function mergeByKey(out: Json[], patch: Json[], mergeKey: string, itemType: SmpType, path: Path): Json[] {
  patch.forEach((item, i) => {
    const v = item as JsonObject;
    if (!(mergeKey in v)) throw new SmpError(fieldPath([...path, i]), `item has no merge key "${mergeKey}"`);
    const key = v[mergeKey];
    const at = out.findIndex((o) => {
      if (!isObject(o))
        throw new SmpError(fieldPath(path), `must be a list of objects, got an item ${JSON.stringify(o)}`);
      return mergeKey in o && scalarEqual(o[mergeKey], key);
    });
    if (at >= 0) out[at] = mergeMap(out[at] as JsonObject, v, itemType, [...path, i]);
    else out.push(v);
  });
  return out;
}

function applySetElementOrder(original: JsonObject, patch: JsonObject, schema: SmpType, path: Path): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ORDER)) continue;
    const order = patch[key] as Json;
    delete patch[key];
    const where = [...path, key];
    if (!Array.isArray(order)) throw new SmpError(fieldPath(where), `must be a list, got ${JSON.stringify(order)}`);
    const k = extractKey(key, SET_ORDER, path);
    const ov = getOwn(original, k);
    const pv = getOwn(patch, k);
    if (ov !== undefined && !Array.isArray(ov))
      throw new SmpError(fieldPath([...path, k]), 'must be a list to be ordered');
    if (pv !== undefined && !Array.isArray(pv))
      throw new SmpError(fieldPath([...path, k]), 'must be a list to be ordered');
    const field = lookup(schema, k);
    const mergeKey = field.mergeKey ?? '';
    validateOrderList(pv ?? [], order, mergeKey, where);
    const patchItems = pv === undefined ? undefined : [...pv];
    let merged: Json[];
    if (ov !== undefined && pv === undefined) merged = ov;
    else if (ov === undefined && pv !== undefined) merged = removeDirectives(pv).value as Json[];
    else if (ov !== undefined && pv !== undefined) merged = mergeListField([...ov], pv, field, false, [...path, k]);
    else continue;
    const kind = elementKind([ov ?? [], pv ?? []], [...path, k]);
    if (kind === undefined) throw new SmpError(fieldPath([...path, k]), 'cannot order a list with no items');
    const live =
      ov !== undefined && pv !== undefined && kind === 'object' && field.strategy === 'merge' && mergeKey !== ''
        ? liveOrderSeenByGo(ov, patchItems ?? [], mergeKey)
        : (ov ?? []);
    const [inOrder, serverOnly] = partitionByPresence(merged, order, mergeKey, fieldPath(where));
    setOwn(original, k, normalizeElementOrder(inOrder, serverOnly, order, live, mergeKey, kind, fieldPath(where)));
    delete patch[k];
  }
}

/** The patch list's items must appear in the $setElementOrder list, in the same relative order. */
function validateOrderList(patchList: readonly Json[], order: readonly Json[], mergeKey: string, where: Path): void {
  if (patchList.length === 0 || order.length === 0) return;
  const items = mergeKey === '' ? patchList : patchList.filter((v) => !(isObject(v) && v[PATCH] === 'delete'));
  const keyOf = (v: Json): Json | undefined => {
    if (mergeKey === '') return v;
    if (!isObject(v) || !(mergeKey in v))
      throw new SmpError(fieldPath(where), `item ${JSON.stringify(v)} has no merge key "${mergeKey}"`);
    return v[mergeKey];
  };
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p] as Json;
    if (isObject(item) && PATCH in item) {
      p++;
      continue;
    }
    if (scalarEqual(keyOf(item), keyOf(order[o] as Json))) p++;
    o++;
  }
  if (p < items.length) throw new SmpError(fieldPath(where), "must list the patch list's items in the same order");
}

// kubectl's merge deletes and appends items inside the live list's Go backing array, and the
// $setElementOrder step then reads the live order through the list's old length, so it sees those
// writes. The JSON decoder grows lists by doubling, so the capacity is the next power of two.
function liveOrderSeenByGo(live: readonly Json[], patch: readonly Json[], mergeKey: string): Json[] {
  const cap = live.length === 0 ? 0 : 2 ** Math.ceil(Math.log2(live.length));
  const backing = [...live];
  let len = live.length;
  const find = (key: Json | undefined): number =>
    backing.slice(0, len).findIndex((o) => isObject(o) && mergeKey in o && scalarEqual(o[mergeKey], key));
  let replace = false;
  for (const item of patch) {
    if (!isObject(item) || !(PATCH in item)) continue;
    if (item[PATCH] === 'replace') replace = true;
    if (item[PATCH] !== 'delete') continue;
    for (let i = find(item[mergeKey]); i >= 0; i = find(item[mergeKey])) {
      backing.copyWithin(i, i + 1, len);
      len--;
    }
  }
  if (replace) return backing.slice(0, live.length);
  for (const item of patch) {
    if (!isObject(item) || PATCH in item || find(item[mergeKey]) >= 0) continue;
    if (len >= cap) break;
    backing[len++] = item;
  }
  return backing.slice(0, live.length);
}
