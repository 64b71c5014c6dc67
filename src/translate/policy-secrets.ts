// Secrets a GwPolicy field names (basic auth `.htaccess`, …), read from the policy's own namespace through
// the translation context, so a change to the Secret re-translates the routes using it.
import { readAny, type Ctx } from './context.js';
import type { IrFieldProvenance } from './ir.js';
import type { PolicySecretReader } from './ir-policy.js';
import { rec, str } from './read.js';

export function policySecretReader(ctx: Ctx, provenance: Record<string, IrFieldProvenance>): PolicySecretReader {
  return (field, name) => {
    const ns = /^GwPolicy ([^/\s]+)\//.exec(provenance[field]?.source ?? '')?.[1];
    if (!ns) return undefined;
    const data = rec(rec(readAny(ctx, 'Secret', `${ns}/${name}`)?.obj)?.data);
    if (!data) return undefined;
    return Object.fromEntries(Object.keys(data).sort().map((k) => [k, Buffer.from(str(data[k]) ?? '', 'base64').toString('utf8')]));
  };
}
