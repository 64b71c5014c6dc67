// Every leaf field path of a TypeBox schema (properties, items, anyOf/oneOf/allOf, maps), for the
// coverage test and the support matrix. An object without declared properties is one leaf.
type Schema = Record<string, unknown> & {
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  additionalProperties?: unknown;
  patternProperties?: Record<string, Schema>;
  type?: unknown;
};

export function schemaLeaves(schema: unknown, root = 'spec'): string[] {
  const out = new Set<string>();
  walk(schema as Schema, root, out, 0);
  return [...out].sort();
}

function walk(s: Schema, path: string, out: Set<string>, depth: number): void {
  if (depth > 40) throw new Error(`${path}: schema nests deeper than 40 levels`);
  const variants = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])].filter((v) =>
    Object.keys(v).some((k) => k !== 'required'),
  );
  if (variants.length) {
    variants.forEach((v) => walk(v, path, out, depth + 1));
    if (!s.properties) return;
  }
  if (s.properties && Object.keys(s.properties).length) {
    for (const [k, v] of Object.entries(s.properties)) walk(v, `${path}.${k}`, out, depth + 1);
    return;
  }
  if (s.type === 'array' && s.items) return walk(s.items, `${path}[]`, out, depth + 1);
  out.add(path);
}
