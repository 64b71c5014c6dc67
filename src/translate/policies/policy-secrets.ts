// Secrets (and ConfigMaps) a GwPolicy field names or selects (basic auth `.htaccess`, API keys, …), read from
// the policy's own namespace through the translation context, so a change to one re-translates the routes
// using it. A selection reads the namespace's index slot, so an object added, removed or relabelled does too.
import type { FieldOrigin } from './policy-merge.js';
import { lookup, readAny, type Ctx } from '../objects/context.js';
import { dataOf } from '../objects/gateway-api.js';
import type { UncheckedPolicySpec } from '../objects/gw-unchecked.js';
import { selectorMatches } from '../objects/read.js';
import type { StoredObject } from '../objects/types.js';

/** A Secret or ConfigMap a selector chose: its name and its data as text. */
export interface SelectedData {
  kind: 'Secret' | 'ConfigMap';
  name: string;
  data: Record<string, string>;
}

/**
 * The decoded data of the Secret `name` in the namespace of the policy that set `field` (undefined when it
 * does not exist); `selected` lists the Secrets or ConfigMaps there whose labels match, sorted by name.
 */
export interface PolicySecretReader {
  (field: string, name: string): Record<string, string> | undefined;
  selected(field: string, kind: SelectedData['kind'], matchLabels: Record<string, string>): SelectedData[];
}

/** Without a translation context nothing resolves: the settings that need an object are refused. */
export const noSecrets: PolicySecretReader = Object.assign(() => undefined, { selected: () => [] });

export function policySecretReader(ctx: Ctx, provenance: Record<string, FieldOrigin>): PolicySecretReader {
  const nsOf = (field: string) => /^GwPolicy ([^/\s]+)\//.exec(provenance[field]?.source ?? '')?.[1];
  return Object.assign(
    (field: string, name: string) => {
      const ns = nsOf(field);
      return ns ? secretData(ctx, ns, name) : undefined;
    },
    {
      selected: (field: string, kind: SelectedData['kind'], labels: Record<string, string>) => {
        const ns = nsOf(field);
        return ns ? selectedData(ctx, ns, kind, labels) : [];
      },
    },
  );
}

/** Reads Secrets of one namespace: the policy's own, when its status explains what it references. */
export function namespaceSecretReader(ctx: Ctx, ns: string): PolicySecretReader {
  return Object.assign((_field: string, name: string) => secretData(ctx, ns, name), {
    selected: (_field: string, kind: SelectedData['kind'], labels: Record<string, string>) =>
      selectedData(ctx, ns, kind, labels),
  });
}

/** Secret `ns/name`'s `data` as text (base64 decoded), read through the context; undefined when it does not exist. */
export function secretData(ctx: Ctx, ns: string, name: string): Record<string, string> | undefined {
  const secret = readAny(ctx, 'Secret', `${ns}/${name}`);
  return secret && textData(secret);
}

/** Secrets hold base64 in `data`, ConfigMaps plain text; both come out as text, keys sorted. */
function textData(e: StoredObject): Record<string, string> {
  const data = dataOf(e);
  const text = (v: string) => (e.kind === 'Secret' ? Buffer.from(v, 'base64').toString('utf8') : v);
  return Object.fromEntries(
    Object.keys(data)
      .sort()
      .map((k) => [k, text(data[k] ?? '')]),
  );
}

/** The `kind` objects of `ns` whose labels carry every one of `labels`, sorted by name. */
function selectedData(
  ctx: Ctx,
  ns: string,
  kind: SelectedData['kind'],
  labels: Record<string, string>,
): SelectedData[] {
  const out: SelectedData[] = [];
  for (const key of lookup(ctx, 'byNamespace', `${kind}/${ns}`).sort()) {
    const e = readAny(ctx, kind, key);
    if (!e || !selectorMatches({ matchLabels: labels }, e.obj.metadata.labels)) continue;
    out.push({ kind, name: e.obj.metadata.name, data: textData(e) });
  }
  return out;
}

/** Names of the Secrets a policy's traffic authentication fields reference, so a Secret change refreshes its status. */
export function referencedSecrets(traffic: UncheckedPolicySpec['traffic']): string[] {
  const names = [traffic?.basicAuthentication, traffic?.apiKeyAuthentication].map((a) => a?.secretRef?.name);
  return names.filter((n): n is string => n !== undefined);
}

/** Whether a policy's API keys are chosen by labels among objects of `kind`: any such object's change may concern it. */
export function selectsKeys(traffic: UncheckedPolicySpec['traffic'], kind: string): boolean {
  const a = traffic?.apiKeyAuthentication;
  return kind === 'Secret'
    ? a?.secretSelector !== undefined
    : kind === 'ConfigMap' && a?.configMapSelector !== undefined;
}
