// Cross-namespace references are allowed only when a ReferenceGrant in the target namespace says so.
import { lookup, read, type Ctx } from './context.js';
import { rec, recs, str } from './read.js';

export interface RefFrom {
  group: string;
  kind: string;
  namespace: string;
}

export interface RefTo {
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

export function referenceAllowed(ctx: Ctx, from: RefFrom, to: RefTo): boolean {
  if (from.namespace === to.namespace) return true;
  for (const gk of lookup(ctx, 'byNamespace', `ReferenceGrant/${to.namespace}`)) {
    const g = read(ctx, 'ReferenceGrant', gk);
    const spec = rec(g?.obj.spec);
    if (!spec) continue;
    const fromOk = recs(spec.from).some(
      (f) => (str(f.group) ?? '') === from.group && str(f.kind) === from.kind && str(f.namespace) === from.namespace,
    );
    const toOk = recs(spec.to).some(
      (t) =>
        (str(t.group) ?? '') === to.group &&
        str(t.kind) === to.kind &&
        (str(t.name) === undefined || str(t.name) === to.name),
    );
    if (fromOk && toOk) return true;
  }
  return false;
}
