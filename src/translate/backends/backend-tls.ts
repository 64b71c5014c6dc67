// Upstream TLS of one route → backend edge: the winning `backend.tls` policy value with its Secret and
// ConfigMap references resolved to PEM. Pure: every read goes through the context, so a change to a
// referenced object re-translates. Messages name the field and the object, never key material.
import type { MergedFields } from '../policies/policy-merge.js';
import { X509Certificate } from 'node:crypto';
import { readAny, type Ctx } from '../objects/context.js';
import { PEM_CERT, decoded, tlsSecretPair } from '../listeners/certificates.js';
import type { BackendTlsInput } from '../../ir/types.js';
import { dataOf, type ObjectReference } from '../objects/gateway-api.js';
import { GROUP } from '../objects/types.js';
import { lacksIdentity, missingIdentity } from '../objects/gateway-identity.js';

export type BackendTlsResult = { ok: true; tls?: BackendTlsInput } | { ok: false; message: string };

const SKIP: Record<string, BackendTlsInput['insecureSkipVerify']> = { Hostname: 'SKIP_HOSTNAME', All: 'SKIP_ALL' };

/**
 * The edge's upstream TLS, or why it cannot be programmed. References are names in the namespace of the
 * object that set `backend.tls` (policies cannot reach across namespaces).
 */
export function backendTls(ctx: Ctx, merged: MergedFields): BackendTlsResult {
  const tls = merged.fields['backend.tls'];
  if (!tls) return { ok: true };
  const source = merged.provenance['backend.tls']?.source ?? '';
  const ns = namespaceOf(source);
  const at = (field: string) => `${source ? `${source} ` : ''}backend.tls.${field}`;
  const out: BackendTlsInput = {
    caPem: '',
    clientCertChainPem: '',
    clientPrivateKeyPem: '',
    sni: tls.sni ?? '',
    insecureSkipVerify: SKIP[tls.insecureSkipVerify ?? ''] ?? 'SKIP_NONE',
    verifySubjectAltNames: [...(tls.verifySubjectAltNames ?? [])],
    source,
    ...(tls.alpnProtocols?.length ? { alpnProtocols: [...tls.alpnProtocols] } : {}),
    ...(tls.keyExchangeGroups?.length ? { keyExchangeGroups: [...tls.keyExchangeGroups] } : {}),
    // The CRD's CEL rule keeps mtlsCertificateRef and caCertificateRefs unset with SPIFFE; the proxy
    // supplies both from its workload identity (docs/proxy.md "Workload identity").
    ...(tls.certificateSource === 'SPIFFE' ? { workloadIdentity: true } : {}),
  };
  // With SPIFFE the peer is checked by its SPIFFE ID: a DNS name in the list would be dropped and widen the check
  // to the whole trust domain, so it is refused instead.
  const notIds =
    tls.certificateSource === 'SPIFFE'
      ? (tls.verifySubjectAltNames ?? []).filter((n) => !n.startsWith('spiffe://'))
      : [];
  const unserved = tls.certificateSource === 'SPIFFE' && missingIdentity(ctx, `${at('certificateSource')}: SPIFFE`);
  if (unserved) return { ok: false, message: unserved };
  if (notIds.length > 0)
    return {
      ok: false,
      message: `${at('verifySubjectAltNames')}: with certificateSource SPIFFE every entry must be a spiffe:// ID (not ${notIds.map((n) => `"${n}"`).join(', ')})`,
    };
  const mtls = tls.mtlsCertificateRef?.[0];
  if (mtls) {
    const name = mtls.name;
    const secret = readAny(ctx, 'Secret', `${ns}/${name}`);
    if (!secret) return { ok: false, message: `${at('mtlsCertificateRef[0]')}: Secret ${ns}/${name} does not exist` };
    const pair = tlsSecretPair(secret.obj);
    if (typeof pair === 'string')
      return { ok: false, message: `${at('mtlsCertificateRef[0]')}: Secret ${ns}/${name} ${pair}` };
    out.clientCertChainPem = pair.certChainPem;
    out.clientPrivateKeyPem = pair.privateKeyPem;
  }
  const ca = tls.caCertificateRefs?.[0];
  if (ca) {
    const bundle = caBundle(ctx, ns, ca);
    if (!bundle.ok) return { ok: false, message: `${at('caCertificateRefs[0]')}: ${bundle.message}` };
    out.caPem = bundle.pem;
  }
  return { ok: true, tls: out };
}

/**
 * The object (`GwPolicy ns/name`, `GwBackend ns/name target t`) whose `backend.tls` asks for the workload
 * identity that the proxy of the Gateway being translated lacks; backendTls refuses that edge.
 */
export function identityLackingSource(ctx: Ctx, merged: MergedFields): string | undefined {
  if (merged.fields['backend.tls']?.certificateSource !== 'SPIFFE' || !lacksIdentity(ctx)) return undefined;
  return merged.provenance['backend.tls']?.source;
}

/** `ca.crt` of a ConfigMap (text) or Secret (base64), as one or more valid PEM certificates. */
export function caBundle(
  ctx: Ctx,
  ns: string,
  ref: ObjectReference,
): { ok: true; pem: string } | { ok: false; message: string } {
  const group = ref.group ?? '',
    kind = ref.kind ?? 'ConfigMap',
    name = ref.name ?? '';
  if (group !== GROUP.core || (kind !== 'ConfigMap' && kind !== 'Secret')) {
    return {
      ok: false,
      message: `refers to ${kind}${group ? `.${group}` : ''}; CA certificates must be in a core ConfigMap or Secret`,
    };
  }
  const obj = readAny(ctx, kind, `${ns}/${name}`);
  if (!obj) return { ok: false, message: `${kind} ${ns}/${name} does not exist` };
  const data = dataOf(obj);
  const text = kind === 'Secret' ? decoded(data['ca.crt']) : data['ca.crt'];
  if (!text?.trim()) return { ok: false, message: `${kind} ${ns}/${name} has no ca.crt` };
  const blocks = text.match(PEM_CERT) ?? [];
  if (blocks.length === 0) return { ok: false, message: `${kind} ${ns}/${name} has no PEM certificate in ca.crt` };
  try {
    for (const b of blocks) new X509Certificate(b);
  } catch {
    return { ok: false, message: `${kind} ${ns}/${name} has a ca.crt that is not a valid PEM certificate bundle` };
  }
  return { ok: true, pem: `${blocks.join('\n')}\n` };
}

/** `GwPolicy ns/name`, `GwBackend ns/name target t` → `ns`. */
function namespaceOf(source: string): string {
  const key = source.split(' ')[1] ?? '';
  return key.includes('/') ? key.slice(0, key.indexOf('/')) : '';
}
