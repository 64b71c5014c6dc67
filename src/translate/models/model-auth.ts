// `spec.policies.auth` of a GwModel provider as what the proxy sends: the credential (key, secretRef,
// passthrough, a cloud kind, or oauthTokenExchange through the same IR as GwPolicy `backend.auth`), the
// `location` it goes to, and the extra `credentials` each at their own. Pure; messages name the field and
// the Secret, never a value. Behaviour: docs/llm-providers.md "GwModel credentials".
import type { GwModelSpec } from '../../api/index.js';
import type { AiCredentialInput } from '../../ir/types.js';
import type { CredentialLocation } from '../../ir/gen/gw/ir/v1/CredentialLocation.js';
import type { PlacedKey } from '../../ir/gen/gw/ir/v1/PlacedKey.js';
import type { Ctx } from '../objects/context.js';
import { policyBackendResolver } from '../policies/ext-auth.js';
import { secretData } from '../policies/policy-secrets.js';
import { aiCredential } from '../backends/backend-ai.js';
import { identityCredential, location } from '../backends/backend-identity.js';

export interface ModelAuth {
  credential?: AiCredentialInput;
  location?: CredentialLocation;
  extra: PlacedKey[];
}

/** Cloud kinds sign or fetch their own header at send time: a location cannot move it. */
const CLOUD = ['aws', 'azure', 'gcp'] as const;

/** The model's auth as the proxy applies it, undefined when it sets none, or why it cannot be served. */
export function modelAuth(ctx: Ctx, key: string, ns: string, spec: GwModelSpec): ModelAuth | string | undefined {
  const auth = spec.policies?.auth;
  if (!auth) return undefined;
  const source = `GwModel ${key}`;
  const at = (field: string): string => `spec.policies.auth.${field}`;
  const scope = {
    ctx,
    ns,
    source,
    at,
    // A backendRef starts in the GwModel's namespace; across namespaces only with a ReferenceGrant from GwModel.
    resolve: policyBackendResolver(ctx, { 'backend.auth': { source, level: 'BackendOwn', overridden: [] } }),
  };
  const identity = identityCredential(scope, auth);
  const credential = identity ?? aiCredential(ctx, auth, ns, source, at);
  if (typeof credential === 'string') return credential;
  const out: ModelAuth = { extra: [] };
  if (credential) out.credential = credential;
  if (auth.location) {
    const cloud = CLOUD.find((k) => auth[k] !== undefined);
    if (cloud) return `${at('location')}: cannot move the ${cloud} credential, which the proxy signs or fetches itself`;
    out.location = location(auth.location);
  }
  for (const [i, c] of (auth.credentials ?? []).entries()) {
    const placedAt = location(c.location);
    if (c.key !== undefined) {
      out.extra.push({ key: c.key, location: placedAt, source });
      continue;
    }
    const ref = c.secretRef;
    if (!ref) continue;
    const dataKey = ref.key ?? 'Authorization';
    const value = (secretData(ctx, ns, ref.name)?.[dataKey] ?? '').trim();
    if (!value)
      return `${at(`credentials[${i}].secretRef`)}: Secret ${ns}/${ref.name} does not exist or has no non-empty key ${dataKey}`;
    out.extra.push({ key: value, location: placedAt, source: `Secret ${ns}/${ref.name} key ${dataKey}` });
  }
  return out.credential || out.location || out.extra.length > 0 ? out : undefined;
}
