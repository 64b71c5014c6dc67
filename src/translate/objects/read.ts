// Defensive readers for values no schema has checked: translation must never crash on odd input. The
// translator reads objects typed (gw-objects.ts, gateway-api.ts); these serve the boundaries only: narrowing,
// validation of unchecked input, label selectors as written, and free-form JSON (Secret contents, JSON values).
export type Rec = Record<string, unknown>;

export function rec(v: unknown): Rec | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined;
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function recs(v: unknown): Rec[] {
  return arr(v).map((x) => rec(x) ?? {});
}

/** Label selector match (matchLabels AND matchExpressions); an empty selector matches everything. */
export function selectorMatches(selector: Rec | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector) return true;
  const l = labels ?? {};
  for (const [k, v] of Object.entries(rec(selector.matchLabels) ?? {})) if (l[k] !== v) return false;
  for (const e of recs(selector.matchExpressions)) {
    const key = str(e.key) ?? '';
    const values = arr(e.values).map(String);
    const has = Object.prototype.hasOwnProperty.call(l, key);
    switch (e.operator) {
      case 'In':
        if (!has || !values.includes(l[key] as string)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(l[key] as string)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** Deterministic JSON: sorted object keys, so hashes and goldens are stable. */
export function stableStringify(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}

export function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  const r = rec(v);
  if (!r) return v;
  const out: Rec = {};
  for (const k of Object.keys(r).sort()) if (r[k] !== undefined) out[k] = sortKeys(r[k]);
  return out;
}
