// TLS termination for HTTPS listeners: certificateRefs → kubernetes.io/tls Secrets → PEM pairs for the
// IR. Parsing with node:crypto is pure (no I/O). Messages name the Secret and the data key, never the
// key material or the parser's own text (which may quote input).
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readAny, type Ctx } from '../objects/context.js';
import type { ListenerTlsInput, TlsCertificateInput } from '../../ir/types.js';
import { record, string } from '../objects/narrow.js';
import type { ListenerSpec } from './listener-spec.js';
import { referenceAllowed } from '../objects/refs.js';
import { GROUP, type StoredObject } from '../objects/types.js';
import { missingIdentity } from '../objects/gateway-identity.js';

/** Why a listener's TLS settings cannot be programmed, as a Gateway API listener condition. */
export interface TlsProblem {
  condition: 'Accepted' | 'ResolvedRefs';
  reason: 'UnsupportedValue' | 'InvalidCertificateRef' | 'RefNotPermitted';
  message: string;
}

export type ListenerTlsResult = { ok: true; tls?: ListenerTlsInput } | { ok: false; problem: TlsProblem };

export const PEM_CERT = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

/**
 * The TLS settings of one listener: none for HTTP, the resolved certificates for HTTPS with mode
 * Terminate (the default); any other combination, or any unusable reference, is a problem.
 */
export function listenerTls(ctx: Ctx, owner: StoredObject, protocol: string, l: ListenerSpec): ListenerTlsResult {
  const tls = l.tls;
  if (protocol !== 'HTTPS') {
    return tls
      ? fail('Accepted', 'UnsupportedValue', `tls must not be set when protocol is ${protocol}`)
      : { ok: true };
  }
  const mode = tls?.mode ?? 'Terminate';
  if (mode !== 'Terminate') {
    return fail(
      'Accepted',
      'UnsupportedValue',
      `tls.mode ${mode} is not valid on an HTTPS listener; HTTPS terminates TLS at the gateway (passthrough needs protocol TLS, which Gw does not support)`,
    );
  }
  const refs = tls?.certificateRefs ?? [];
  const options = identityOptions(ctx, tls?.options ?? {}, refs.length > 0);
  if (!options.ok) return options;
  if (options.identity.workloadIdentity) return { ok: true, tls: { certificates: [], ...options.identity } };
  if (refs.length === 0)
    return fail(
      'ResolvedRefs',
      'InvalidCertificateRef',
      'an HTTPS listener needs at least one tls.certificateRefs entry',
    );
  const ns = owner.obj.metadata.namespace ?? '';
  // ReferenceGrants name the owner as it is served (ListenerSet is in two API groups across releases).
  const apiVersion = owner.obj.apiVersion ?? '';
  const ownerGroup = apiVersion.includes('/')
    ? apiVersion.slice(0, apiVersion.indexOf('/'))
    : owner.kind === 'Gateway'
      ? GROUP.gateway
      : GROUP.listenerSet;
  const from = { group: ownerGroup, kind: owner.obj.kind || owner.kind, namespace: ns };
  const certificates: TlsCertificateInput[] = [];
  for (const [i, r] of refs.entries()) {
    const group = r.group ?? '',
      kind = r.kind ?? 'Secret';
    const tns = r.namespace ?? ns,
      name = r.name ?? '';
    const at = `tls.certificateRefs[${i}]`;
    if (group !== GROUP.core || kind !== 'Secret') {
      return fail(
        'ResolvedRefs',
        'InvalidCertificateRef',
        `${at} refers to ${kind}${group ? `.${group}` : ''}; only core Secrets hold certificates`,
      );
    }
    if (!referenceAllowed(ctx, from, { group: GROUP.core, kind: 'Secret', namespace: tns, name })) {
      return fail(
        'ResolvedRefs',
        'RefNotPermitted',
        `${at}: Secret ${tns}/${name} is in another namespace and no ReferenceGrant allows it`,
      );
    }
    const secret = readAny(ctx, 'Secret', `${tns}/${name}`);
    if (!secret) return fail('ResolvedRefs', 'InvalidCertificateRef', `${at}: Secret ${tns}/${name} does not exist`);
    const parsed = tlsSecretPair(secret.obj);
    if (typeof parsed === 'string')
      return fail('ResolvedRefs', 'InvalidCertificateRef', `${at}: Secret ${tns}/${name} ${parsed}`);
    certificates.push({ ...parsed, source: `Secret ${tns}/${name}` });
  }
  return { ok: true, tls: { certificates, ...options.identity } };
}

/** The Gateway API listener `tls.options` Gw acts on; any other key is refused, not ignored. */
export const CERTIFICATE_SOURCE = 'tls-certificate-source';
export const CLIENT_VERIFICATION = 'tls-client-verification';

/**
 * The listener's `tls.options`: `tls-certificate-source: SPIFFE` serves the proxy's workload identity instead
 * of certificateRefs, `tls-client-verification: SPIFFE` requires client SVIDs of its trust domain. Both need
 * the Gateway's proxy to hold an identity (GwParameters spiffe or istio); an unknown key or value is refused.
 */
function identityOptions(
  ctx: Ctx,
  options: Record<string, unknown>,
  hasRefs: boolean,
):
  | { ok: true; identity: Pick<ListenerTlsInput, 'workloadIdentity' | 'clientWorkloadIdentity'> }
  | { ok: false; problem: TlsProblem } {
  const unknown = Object.keys(options).filter((k) => k !== CERTIFICATE_SOURCE && k !== CLIENT_VERIFICATION);
  if (unknown.length > 0)
    return fail(
      'Accepted',
      'UnsupportedValue',
      `tls.options ${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not supported; Gw reads ${CERTIFICATE_SOURCE} and ${CLIENT_VERIFICATION}`,
    );
  const identity: Pick<ListenerTlsInput, 'workloadIdentity' | 'clientWorkloadIdentity'> = {};
  for (const [key, field] of [
    [CERTIFICATE_SOURCE, 'workloadIdentity'],
    [CLIENT_VERIFICATION, 'clientWorkloadIdentity'],
  ] as const) {
    const value = options[key];
    if (value === undefined) continue;
    if (value !== 'SPIFFE')
      return fail(
        'Accepted',
        'UnsupportedValue',
        `tls.options ${key}: ${JSON.stringify(value)} is not supported; the only value is SPIFFE`,
      );
    const missing = missingIdentity(ctx, `tls.options ${key}: SPIFFE`);
    if (missing) return fail('Accepted', 'UnsupportedValue', missing);
    identity[field] = true;
  }
  if (identity.workloadIdentity && hasRefs)
    return fail(
      'Accepted',
      'UnsupportedValue',
      `tls.certificateRefs must be empty when tls.options ${CERTIFICATE_SOURCE} is SPIFFE (the proxy serves its workload identity)`,
    );
  return { ok: true, identity };
}

/**
 * The PEM pair of a kubernetes.io/tls Secret, or what is wrong with it (a phrase completing
 * "Secret ns/name ..."). The certificate must parse, the key must parse and belong to it.
 */
export function tlsSecretPair(secret: {
  type?: unknown;
  data?: unknown;
}): { certChainPem: string; privateKeyPem: string } | string {
  if (secret.type !== 'kubernetes.io/tls')
    return `has type ${string(secret.type) ?? 'Opaque'}; certificates must be in a kubernetes.io/tls Secret`;
  const data = record(secret.data) ?? {};
  const crt = decoded(data['tls.crt']),
    key = decoded(data['tls.key']);
  if (!crt) return 'has no tls.crt';
  if (!key) return 'has no tls.key';
  const blocks = crt.match(PEM_CERT) ?? [];
  if (blocks.length === 0) return 'has no PEM certificate in tls.crt';
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(blocks[0] as string);
    for (const b of blocks.slice(1)) new X509Certificate(b);
  } catch {
    return 'has a tls.crt that is not a valid PEM certificate chain';
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key, format: 'pem' });
  } catch {
    return 'has a tls.key that is not an unencrypted PEM private key';
  }
  if (!leaf.checkPrivateKey(privateKey)) return 'has a tls.key that does not match the first certificate in tls.crt';
  return { certChainPem: `${blocks.join('\n')}\n`, privateKeyPem: key };
}

export function decoded(v: unknown): string | undefined {
  const s = string(v);
  if (!s) return undefined;
  const text = Buffer.from(s, 'base64').toString('utf8');
  return text.trim() === '' ? undefined : text;
}

function fail(
  condition: TlsProblem['condition'],
  reason: TlsProblem['reason'],
  message: string,
): { ok: false; problem: TlsProblem } {
  return { ok: false, problem: { condition, reason, message } };
}
