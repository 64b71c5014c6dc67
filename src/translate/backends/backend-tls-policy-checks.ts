// What BackendTLSPolicy objects say on their own, without translating anything: the Services they target
// (the store indexes them) and the admission checks translation relies on (validate.ts runs them). Kept
// apart from backend-tls-policy.ts so the object store does not depend on translation code.
import type { Problem } from '../../problem.js';
import { backendTlsPolicySpec, type ObjectReference } from '../objects/gateway-api.js';
import { arr, rec, recs, str, type Rec } from '../objects/read.js';
import { GROUP, nameKey, objectKey, type StoredObject } from '../objects/types.js';

/** `Service/ns/name` keys of the Services a policy's targetRefs name (other kinds are not supported). */
export function backendTlsPolicyTargets(policy: StoredObject): string[] {
  const ns = policy.obj.metadata.namespace ?? '';
  return (backendTlsPolicySpec(policy).targetRefs ?? [])
    .filter(isServiceRef)
    .map((t) => objectKey('Service', nameKey(ns, t.name ?? '')));
}

/**
 * The admission checks of the CRD (schema and CEL rules) that translation relies on, so an object that
 * slipped past them (local files, an older CRD) is reported as Invalid instead of half applied. They read
 * the spec as written (the input is unchecked by definition) and quote odd values in their messages.
 */
export function backendTlsPolicyProblems(spec: Rec, source: string, object: string): Problem[] {
  const out: Problem[] = [];
  const bad = (path: string, message: string) => out.push({ source, object, path, message });
  const targets = arr(spec.targetRefs);
  if (targets.length < 1 || targets.length > 16)
    bad('spec.targetRefs', `must have 1 to 16 items, got ${targets.length}`);
  recs(targets).forEach((t, i) => {
    if (!str(t.name)) bad(`spec.targetRefs[${i}].name`, 'must be set');
  });
  const v = rec(spec.validation);
  if (!v) {
    bad('spec.validation', 'must be set');
    return out;
  }
  if (!str(v.hostname))
    bad('spec.validation.hostname', 'must be set: it is the SNI and the name the backend certificate must match');
  const refs = arr(v.caCertificateRefs);
  const wellKnown = str(v.wellKnownCACertificates) ?? '';
  if (refs.length > 0 && wellKnown)
    bad('spec.validation', 'must not set both caCertificateRefs and wellKnownCACertificates');
  if (refs.length === 0 && !wellKnown) bad('spec.validation', 'must set caCertificateRefs or wellKnownCACertificates');
  if (wellKnown && wellKnown !== 'System')
    bad(
      'spec.validation.wellKnownCACertificates',
      `must be System (the only set Gw knows), got ${JSON.stringify(wellKnown)}`,
    );
  recs(v.subjectAltNames).forEach((s, i) => {
    const type = str(s.type);
    if (type === 'Hostname' && !str(s.hostname))
      bad(`spec.validation.subjectAltNames[${i}].hostname`, 'must be set when type is Hostname');
    else if (type === 'URI' && !str(s.uri))
      bad(`spec.validation.subjectAltNames[${i}].uri`, 'must be set when type is URI');
    else if (type !== 'Hostname' && type !== 'URI')
      bad(`spec.validation.subjectAltNames[${i}].type`, `must be Hostname or URI, got ${JSON.stringify(s.type)}`);
  });
  return out;
}

export function isServiceRef(t: ObjectReference): boolean {
  return (t.group ?? '') === GROUP.core && (t.kind ?? '') === 'Service';
}
