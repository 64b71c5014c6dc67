// Narrowing for objects no schema has checked: Gateway API and core kinds (the API server owns their schemas)
// and Gw objects that failed validation but still get a status. A narrowed value keeps a field only when it
// has the type the translator reads it as, so code past the boundary reads typed fields and odd input never
// crashes translation. Each narrower reads as the defensive helpers in read.ts did: a non-string is no
// string, a non-finite number no number, a list item that is not an object an empty object.
import { rec } from './read.js';

/** Any input → a value of type T. */
export type Narrow<T> = (v: unknown) => T;

/** One narrower per field of T. */
export type Fields<T> = { [K in keyof T]-?: Narrow<T[K]> };

export const string: Narrow<string | undefined> = (v) => (typeof v === 'string' ? v : undefined);

export const number: Narrow<number | undefined> = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** A value kept as it is: echoed into status as written, or only tested for presence. */
export const raw: Narrow<unknown> = (v) => v;

/** An object kept as written (a label selector, which selectorMatches reads defensively); else undefined. */
export const record: Narrow<Record<string, unknown> | undefined> = rec;

/** An object: a non-object reads as `{}`; fields that narrow to undefined are left out. */
export function object<T extends object>(fields: Fields<T>): Narrow<T> {
  const names = Object.keys(fields) as (keyof T & string)[];
  return (v) => {
    const r = rec(v) ?? {};
    const out: Partial<T> = {};
    for (const k of names) {
      const x = fields[k](r[k]);
      if (x !== undefined) out[k] = x;
    }
    return out as T;
  };
}

/** An object field: undefined unless the input is an object. */
export function optional<T extends object>(fields: Fields<T>): Narrow<T | undefined> {
  const o = object(fields);
  return (v) => (rec(v) ? o(v) : undefined);
}

/** A list: undefined unless the input is an array; every item narrowed. */
export function list<T>(item: Narrow<T>): Narrow<T[] | undefined> {
  return (v) => (Array.isArray(v) ? v.map(item) : undefined);
}

/** A list of strings: undefined unless the input is an array; items that are not strings are dropped. */
export const strings: Narrow<string[] | undefined> = (v) =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;

/** Narrows once per input object (stored objects are never changed in place, so identity is a safe key). */
export function memoized<T>(narrow: Narrow<T>): Narrow<T> {
  const seen = new WeakMap<object, T>();
  return (v) => {
    if (v === null || typeof v !== 'object') return narrow(v);
    let t = seen.get(v);
    if (t === undefined) seen.set(v, (t = narrow(v)));
    return t;
  };
}
