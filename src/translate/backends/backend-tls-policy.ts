// Gateway API BackendTLSPolicy (gateway.networking.k8s.io/v1) on Service backends: which policy covers a
// Service port, the upstream TLS it asks for, and what its status says. Pure: every read goes through the
// context (translation) or a fresh one (status), so a change to a policy, Service or ConfigMap re-runs it.
import { caBundle } from './backend-tls.js';
import { condition, type Condition, type StatusPiece } from '../status/conditions.js';
import { lookup, readAny, type Ctx } from '../objects/context.js';
import type { BackendTlsInput } from '../../ir/types.js';
import { backendTlsPolicySpec, serviceSpec, type BackendTlsPolicyTarget } from '../objects/gateway-api.js';
import { GROUP, displayName, nameKey, objectKey, type StoredObject } from '../objects/types.js';
import { isServiceRef } from './backend-tls-policy-checks.js';

export const BACKEND_TLS_POLICY = 'BackendTLSPolicy';

export type ServiceTlsResult = { ok: true; tls?: BackendTlsInput } | { ok: false; message: string };

/**
 * Upstream TLS for the edge to `service` port `port` from the BackendTLSPolicy that covers it, or why it
 * cannot be programmed. Every policy that selects the Service hears that `gateway` reaches it, winners and
 * losers alike, so each gets an ancestor entry for that Gateway.
 */
export function serviceBackendTls(
  ctx: Ctx,
  service: StoredObject,
  port: number,
  gateway: string,
  piece: (objKey: string, p: StatusPiece) => void,
): ServiceTlsResult {
  const policies = candidates(ctx, service.key);
  for (const p of policies) piece(objectKey(BACKEND_TLS_POLICY, p.key), { kind: 'backendTlsPolicy', gateway });
  const portName = (serviceSpec(service).ports ?? []).find((p) => p.port === port)?.name;
  const winner =
    (portName ? winnerOf(policies, service.obj.metadata.name, portName) : undefined) ??
    winnerOf(policies, service.obj.metadata.name, undefined);
  if (!winner) return { ok: true };
  const at = `${displayName(BACKEND_TLS_POLICY, winner.key)}`;
  if (winner.problems.length)
    return {
      ok: false,
      message: `${at} is invalid: ${winner.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
    };
  const v = backendTlsPolicySpec(winner).validation ?? {};
  const refs = caRefs(ctx, winner);
  const broken = refs.find((r) => !r.ok);
  if (broken && !broken.ok) return { ok: false, message: `${at} ${broken.message}` };
  const hostname = v.hostname ?? '';
  const sans = (v.subjectAltNames ?? []).map((s) => (s.type === 'URI' ? s.uri : s.hostname) ?? '').filter((s) => s);
  return {
    ok: true,
    tls: {
      // No caCertificateRefs means wellKnownCACertificates: System, i.e. the proxy's default trust store.
      caPem: refs.map((r) => (r.ok ? r.pem : '')).join(''),
      clientCertChainPem: '',
      clientPrivateKeyPem: '',
      sni: hostname,
      insecureSkipVerify: 'SKIP_NONE',
      // With no names listed the proxy verifies the certificate against the SNI, i.e. the hostname.
      verifySubjectAltNames: sans,
      source: at,
    },
  };
}

/** A policy's own conditions (Accepted, ResolvedRefs), the same for every Gateway it is reported under. */
export function backendTlsPolicyConditions(ctx: Ctx, policy: StoredObject): Condition[] {
  const gen = policy.obj.metadata.generation ?? 0;
  const now = ctx.options.now;
  const refs = policy.problems.length ? [] : caRefs(ctx, policy);
  const bad = refs.filter((r) => !r.ok);
  const resolved: [boolean, string, string] =
    bad.length === 0
      ? [true, 'ResolvedRefs', 'all CA certificate references resolved']
      : [
          false,
          bad.some((r) => !r.ok && r.reason === 'InvalidKind') ? 'InvalidKind' : 'InvalidCACertificateRef',
          bad.map((r) => (r.ok ? '' : r.message)).join('; '),
        ];
  const accepted = acceptance(ctx, policy, refs.length > 0 && bad.length === refs.length);
  return [condition('Accepted', ...accepted, gen, now), condition('ResolvedRefs', ...resolved, gen, now)];
}

function acceptance(ctx: Ctx, policy: StoredObject, noValidCa: boolean): [boolean, string, string] {
  if (policy.problems.length)
    return [false, 'Invalid', policy.problems.map((p) => `${p.path}: ${p.message}`).join('; ')];
  const ns = policy.obj.metadata.namespace ?? '';
  const targets = backendTlsPolicySpec(policy).targetRefs ?? [];
  const other = targets.find((t) => !isServiceRef(t));
  if (other)
    return [
      false,
      'Invalid',
      `target kind ${other.group ?? ''}/${other.kind ?? ''} is not supported; BackendTLSPolicy applies to core Services`,
    ];
  for (const t of targets) {
    const name = t.name ?? '';
    const service = readAny(ctx, 'Service', nameKey(ns, name));
    if (!service) return [false, 'TargetNotFound', `Service ${nameKey(ns, name)} does not exist`];
    const section = sectionOf(t);
    if (section !== undefined && !(serviceSpec(service).ports ?? []).some((p) => p.name === section)) {
      return [false, 'TargetNotFound', `Service ${service.key} has no port named ${section}`];
    }
    const winner = winnerOf(candidates(ctx, service.key), name, section);
    if (winner && winner.key !== policy.key) {
      return [
        false,
        'Conflicted',
        `${displayName(BACKEND_TLS_POLICY, winner.key)} is older and also selects Service ${service.key}${section ? ` port ${section}` : ''}`,
      ];
    }
  }
  if (noValidCa) return [false, 'NoValidCACertificate', 'none of caCertificateRefs is a usable CA certificate'];
  return [true, 'Accepted', 'the policy is accepted'];
}

type CaRef =
  { ok: true; pem: string } | { ok: false; reason: 'InvalidKind' | 'InvalidCACertificateRef'; message: string };

/** Each caCertificateRef resolved: a ConfigMap in the policy's namespace with a PEM bundle under `ca.crt`. */
function caRefs(ctx: Ctx, policy: StoredObject): CaRef[] {
  const ns = policy.obj.metadata.namespace ?? '';
  return (backendTlsPolicySpec(policy).validation?.caCertificateRefs ?? []).map((ref, i): CaRef => {
    const at = `spec.validation.caCertificateRefs[${i}]`;
    const group = ref.group ?? '',
      kind = ref.kind ?? '';
    if (group !== GROUP.core || kind !== 'ConfigMap') {
      return {
        ok: false,
        reason: 'InvalidKind',
        message: `${at}: kind ${kind}${group ? `.${group}` : ''} is not supported; CA certificates must be in a core ConfigMap`,
      };
    }
    const bundle = caBundle(ctx, ns, ref);
    return bundle.ok ? bundle : { ok: false, reason: 'InvalidCACertificateRef', message: `${at}: ${bundle.message}` };
  });
}

/** Every BackendTLSPolicy naming the Service, valid or not: an invalid winner must fail closed, not lose. */
function candidates(ctx: Ctx, serviceKey: string): StoredObject[] {
  return lookup(ctx, 'backendTlsPoliciesByTarget', objectKey('Service', serviceKey)).flatMap(
    (k) => readAny(ctx, BACKEND_TLS_POLICY, k) ?? [],
  );
}

/**
 * The policy that takes effect for the Service (or one named port of it): among those selecting exactly
 * that target and sectionName, the oldest by creationTimestamp, then by namespace/name (Gateway API).
 */
function winnerOf(
  policies: StoredObject[],
  serviceName: string,
  section: string | undefined,
): StoredObject | undefined {
  const selecting = policies.filter((p) =>
    (backendTlsPolicySpec(p).targetRefs ?? []).some(
      (t) => isServiceRef(t) && t.name === serviceName && sectionOf(t) === section,
    ),
  );
  return selecting.sort((a, b) => {
    // A missing creationTimestamp (local files) sorts as newest, so names decide among those.
    const ca = a.obj.metadata.creationTimestamp ?? '~',
      cb = b.obj.metadata.creationTimestamp ?? '~';
    if (ca !== cb) return ca < cb ? -1 : 1;
    return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
  })[0];
}

/** An empty sectionName means the whole Service, as the CRD's CEL rules read it. */
function sectionOf(t: BackendTlsPolicyTarget): string | undefined {
  return t.sectionName || undefined;
}
