// Cross-namespace references are allowed only when a ReferenceGrant in the target namespace says so.
import { lookup, read, type Ctx } from './context.js';
import { referenceGrantSpec } from './gateway-api.js';

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
    if (!g) continue;
    const spec = referenceGrantSpec(g);
    const fromOk = (spec.from ?? []).some(
      (f) => (f.group ?? '') === from.group && f.kind === from.kind && f.namespace === from.namespace,
    );
    const toOk = (spec.to ?? []).some(
      (t) => (t.group ?? '') === to.group && t.kind === to.kind && (t.name === undefined || t.name === to.name),
    );
    if (fromOk && toOk) return true;
  }
  return false;
}
