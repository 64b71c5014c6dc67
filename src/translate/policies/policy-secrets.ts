// Secrets a GwPolicy field names (basic auth `.htaccess`, …), read from the policy's own namespace through
// the translation context, so a change to the Secret re-translates the routes using it.
import type { FieldOrigin } from './policy-merge.js';
import { readAny, type Ctx } from '../objects/context.js';
import { dataOf } from '../objects/gateway-api.js';
import type { UncheckedPolicySpec } from '../objects/gw-unchecked.js';

/** The decoded data of the Secret `name` in the namespace of the policy that set `field`; undefined when it does not exist. */
export type PolicySecretReader = (field: string, name: string) => Record<string, string> | undefined;

export function policySecretReader(ctx: Ctx, provenance: Record<string, FieldOrigin>): PolicySecretReader {
  return (field, name) => {
    const ns = /^GwPolicy ([^/\s]+)\//.exec(provenance[field]?.source ?? '')?.[1];
    return ns ? secretData(ctx, ns, name) : undefined;
  };
}

/** Reads Secrets of one namespace: the policy's own, when its status explains what it references. */
export function namespaceSecretReader(ctx: Ctx, ns: string): PolicySecretReader {
  return (_field, name) => secretData(ctx, ns, name);
}

/** Secret `ns/name`'s `data` as text (base64 decoded), read through the context; undefined when it does not exist. */
export function secretData(ctx: Ctx, ns: string, name: string): Record<string, string> | undefined {
  const secret = readAny(ctx, 'Secret', `${ns}/${name}`);
  if (!secret) return undefined;
  const data = dataOf(secret);
  return Object.fromEntries(
    Object.keys(data)
      .sort()
      .map((k) => [k, Buffer.from(data[k] ?? '', 'base64').toString('utf8')]),
  );
}

/** Names of the Secrets a policy's traffic authentication fields reference, so a Secret change refreshes its status. */
export function referencedSecrets(traffic: UncheckedPolicySpec['traffic']): string[] {
  const names = [traffic?.basicAuthentication, traffic?.apiKeyAuthentication].map((a) => a?.secretRef?.name);
  return names.filter((n): n is string => n !== undefined);
}
