// Plain JSON values, as parsed from YAML/JSON objects and patches.

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// A key such as `__proto__` in user input must stay a plain field: reading it must not reach
// Object.prototype and writing it must not replace an object's prototype.
export function getOwn(o: JsonObject, k: string): Json | undefined {
  return Object.hasOwn(o, k) ? o[k] : undefined;
}

export function setOwn(o: JsonObject, k: string, v: Json): void {
  Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
}

export function deepClone<T extends Json>(v: T): T {
  return structuredClone(v);
}

/** A copy with object keys sorted at every level, so YAML/JSON output is stable. */
export function sortKeys(v: Json): Json {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v).sort()) setOwn(out, k, sortKeys(v[k] as Json));
    return out;
  }
  return v;
}
