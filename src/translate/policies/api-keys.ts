// The keys of `traffic.apiKeyAuthentication`, from the Secret `secretRef` names or from every Secret
// (`secretSelector`) or ConfigMap (`configMapSelector`, `keyHash` entries only) of the policy's namespace
// whose labels match. Only SHA-256 hashes leave this file; messages name objects and data keys, never a key.
// A key found twice with different metadata is left out (its requests get 401), never resolved by picking
// one: `apiKeyDuplicates` says so on the policy's status. Behaviour: docs/auth.md "API keys".
import { createHash } from 'node:crypto';
import type { TrafficPolicy } from '../../api/index.js';
import { rec } from '../objects/read.js';
import type { PolicySecretReader, SelectedData } from './policy-secrets.js';

type ApiKey = NonNullable<TrafficPolicy['apiKeyAuthentication']>;
type Entry = { keySha256: string; metadataJson: string };

const FIELD = 'traffic.apiKeyAuthentication';

interface Found {
  metadataJson: string;
  /** `Secret a key k` for each place the key was found. */
  origins: string[];
  /** Found with different metadata in two places. */
  conflict: boolean;
}

/**
 * The accepted entries sorted by hash, each key found in more than one place, and what to say when no
 * entry is left; a string says why the keys cannot be read (a missing Secret, a malformed entry).
 */
export function apiKeyEntries(
  a: ApiKey,
  readSecret: PolicySecretReader,
): { entries: Entry[]; duplicates: string[]; empty: string } | string {
  const src = keySources(a, readSecret);
  if (typeof src === 'string') return src;
  const found = new Map<string, Found>();
  for (const o of src.objects) {
    for (const [dataKey, value] of Object.entries(o.data)) {
      const origin = `${o.kind} ${o.name} key ${dataKey}`;
      const entry = apiKeyEntry(value.trim(), o.kind === 'ConfigMap');
      if (typeof entry === 'string') return `${src.where}: ${origin}: ${entry}`;
      if (!entry) continue;
      const seen = found.get(entry.keySha256);
      if (!seen) found.set(entry.keySha256, { metadataJson: entry.metadataJson, origins: [origin], conflict: false });
      else {
        seen.origins.push(origin);
        seen.conflict ||= seen.metadataJson !== entry.metadataJson;
      }
    }
  }
  const entries = [...found]
    .filter(([, f]) => !f.conflict)
    .sort(([x], [y]) => (x < y ? -1 : 1))
    .map(([keySha256, f]) => ({ keySha256, metadataJson: f.metadataJson }));
  const duplicates = [...found.values()]
    .filter((f) => f.origins.length > 1)
    .map((f) =>
      f.conflict
        ? `${f.origins.join(', ')} hold the same key with different metadata: it is not accepted`
        : `${f.origins.join(', ')} hold the same key (same metadata: accepted once)`,
    )
    .sort();
  return { entries, duplicates, empty: `${src.where}: ${src.empty}` };
}

/** What the policy's status says about keys found twice, for its ApiKeysUnique condition; empty when none is. */
export function apiKeyDuplicates(traffic: TrafficPolicy, readSecret: PolicySecretReader): string {
  const a = traffic.apiKeyAuthentication;
  const r = a && apiKeyEntries(a, readSecret);
  return r && typeof r !== 'string' && r.duplicates.length ? `${FIELD}: ${r.duplicates.join('; ')}` : '';
}

/** The objects the keys come from, the field that chose them, and what to say when they hold none. */
function keySources(
  a: ApiKey,
  readSecret: PolicySecretReader,
): { where: string; objects: SelectedData[]; empty: string } | string {
  const ref = a.secretRef;
  if (ref) {
    const data = readSecret(FIELD, ref.name);
    if (!data) return `secretRef: Secret ${ref.name} does not exist in the policy's namespace`;
    return {
      where: 'secretRef',
      objects: [{ kind: 'Secret', name: ref.name, data }],
      empty: `Secret ${ref.name} holds no usable key`,
    };
  }
  const [where, kind, selector] =
    a.secretSelector !== undefined
      ? (['secretSelector', 'Secret', a.secretSelector] as const)
      : (['configMapSelector', 'ConfigMap', a.configMapSelector] as const);
  const labels = selector?.matchLabels ?? {};
  const text = Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k] ?? ''}`)
    .join(',');
  return {
    where,
    objects: readSecret.selected(FIELD, kind, labels),
    empty: `no ${kind} with labels ${text} in the policy's namespace holds a usable key`,
  };
}

/**
 * One data value as an API-key entry: a plain key, or a JSON object with `key` or `keyHash`
 * (`sha256:<64 hex>`) and an optional `metadata` object (seed 001); ConfigMaps may hold only `keyHash`
 * (they are not secret). A string says what is wrong, without the key. Values are free-form text, so the
 * parsed JSON is read defensively.
 */
function apiKeyEntry(value: string, hashOnly: boolean): Entry | string | undefined {
  if (!value) return undefined;
  const plainInConfigMap = 'a ConfigMap may hold only {"keyHash": "sha256:<hex>"} entries; keep plain keys in a Secret';
  const sha = (k: string): string => createHash('sha256').update(k, 'utf8').digest('hex');
  if (!value.startsWith('{')) return hashOnly ? plainInConfigMap : { keySha256: sha(value), metadataJson: '{}' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return 'is neither a plain key nor a JSON object';
  }
  const o = rec(parsed);
  if (!o) return 'must be a JSON object';
  const metadata = o.metadata === undefined ? {} : rec(o.metadata);
  if (!metadata) return 'metadata must be an object';
  const metadataJson = JSON.stringify(metadata);
  if (typeof o.key === 'string' && o.key && o.keyHash === undefined)
    return hashOnly ? plainInConfigMap : { keySha256: sha(o.key), metadataJson };
  if (typeof o.keyHash === 'string' && o.key === undefined) {
    const m = /^sha256:([0-9a-fA-F]{64})$/.exec(o.keyHash);
    if (!m?.[1]) return 'keyHash must be sha256:<64 hex digits>';
    return { keySha256: m[1].toLowerCase(), metadataJson };
  }
  return 'must set exactly one of key, keyHash';
}
