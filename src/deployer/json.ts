// Plain JSON values, as parsed from YAML/JSON objects and patches.

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function deepClone<T extends Json>(v: T): T {
  return structuredClone(v);
}

/** A copy with object keys sorted at every level, so YAML/JSON output is stable. */
export function sortKeys(v: Json): Json {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeys(v[k] as Json);
    return out;
  }
  return v;
}
