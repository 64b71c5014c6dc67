// `jwtAuthentication.providers[].jwks.remote.backendRef` (+ `path`): the URL the proxy fetches the key set
// from and the TLS it uses, from the backend the ref names — a Service (its BackendTLSPolicy) or a static
// GwBackend (its own `policies.tls`). Reference checks (namespace, ReferenceGrant, kind) are the policy
// backendRef rules of ext-auth.ts. Pure: every read goes through the context.
import type { BackendTlsInput } from '../../ir/types.js';
import { backendTls, type BackendTlsResult } from '../backends/backend-tls.js';
import { serviceBackendTls } from '../backends/backend-tls-policy.js';
import { serviceHost } from '../backends/backends.js';
import { read, readGw, type Ctx } from '../objects/context.js';
import { displayName, nameKey } from '../objects/types.js';
import { policyBackendResolver, type PolicyBackendRef } from './ext-auth.js';
import type { FieldOrigin } from './policy-merge.js';
import type { EffectiveFields } from './policy-sections.js';

/** Where a provider's keys are fetched, or why they cannot be. */
export type JwksBackendResolver = (
  ref: PolicyBackendRef,
  path: string | undefined,
) => { url: string; tls?: BackendTlsInput } | { problem: string };

/** Without the translation context no backendRef resolves: the route is refused rather than guessed. */
export const noJwksBackends: JwksBackendResolver = () => ({ problem: 'cannot be resolved here' });

/** For policy status, judged apart from any route: a backendRef's problems show on the routes. */
export const anyJwksBackend: JwksBackendResolver = () => ({ url: 'https://resolved-per-route/' });

/**
 * `field` is where the keys are named: `traffic.jwtAuthentication` (its providers, with or without `mcp`) or
 * `backend.mcp` (`authentication.jwks.backendRef`); references start in the namespace of the object that set it.
 */
export function jwksBackendResolver(
  ctx: Ctx,
  provenance: Record<string, FieldOrigin>,
  field = 'traffic.jwtAuthentication',
): JwksBackendResolver {
  const resolve = policyBackendResolver(ctx, provenance);
  return (ref, path = '/.well-known/jwks.json') => {
    const r = resolve(field, ref);
    if ('problem' in r) return { problem: r.problem };
    const from = /^(?:GwPolicy|GwBackend) ([^/\s]+)\//.exec(provenance[field]?.source ?? '')?.[1] ?? '';
    const ns = ref.namespace ?? from;
    const name = ref.name ?? '';
    const target =
      ref.kind === 'GwBackend' ? gwBackendTarget(ctx, ns, name, ref.port) : serviceTarget(ctx, ns, name, ref.port ?? 0);
    if ('problem' in target) return target;
    const scheme = target.tls ? 'https' : 'http';
    return { url: `${scheme}://${target.host}:${target.port}${path}`, ...(target.tls ? { tls: target.tls } : {}) };
  };
}

type Target = { host: string; port: number; tls?: BackendTlsInput } | { problem: string };

function serviceTarget(ctx: Ctx, ns: string, name: string, port: number): Target {
  const svc = read(ctx, 'Service', nameKey(ns, name));
  if (!svc) return { problem: `Service ${ns}/${name} does not exist` };
  // The BackendTLSPolicy's own status is reported where routes reach the Service; no piece from here.
  const tls = serviceBackendTls(ctx, svc, port, '', () => undefined);
  if (!tls.ok) return { problem: tls.message };
  return { host: serviceHost(name, ns), port, ...(tls.tls ? { tls: tls.tls } : {}) };
}

function gwBackendTarget(ctx: Ctx, ns: string, name: string, port: number | undefined): Target {
  const spec = readGw(ctx, 'GwBackend', nameKey(ns, name))?.spec;
  const st = spec?.static;
  if (!st) return { problem: `GwBackend ${ns}/${name} does not exist or is not a static backend` };
  const source = displayName('GwBackend', nameKey(ns, name));
  const tlsValue = spec.policies?.tls;
  const origin: FieldOrigin = { source, level: 'BackendOwn', overridden: [] };
  const tls: BackendTlsResult = tlsValue
    ? backendTls(ctx, { fields: { 'backend.tls': tlsValue }, provenance: { 'backend.tls': origin } })
    : { ok: true };
  if (!tls.ok) return { problem: tls.message };
  // The JWKS fetcher dials with a CA and a client certificate only; it does not present a workload identity.
  if (tls.tls?.workloadIdentity)
    return { problem: `${source} policies.tls.certificateSource: SPIFFE is not supported for a JWKS backend` };
  return { host: st.host, port: port ?? st.port, ...(tls.tls ? { tls: tls.tls } : {}) };
}

/** Why a provider's `jwks.remote.backendRef` cannot be resolved, for the route's ResolvedRefs (as extAuth's). */
export function jwksRefProblem(
  fields: EffectiveFields,
  resolve: JwksBackendResolver,
): { reason: string; message: string } | undefined {
  for (const [i, p] of (fields['traffic.jwtAuthentication']?.providers ?? []).entries()) {
    const ref = p.jwks.remote?.backendRef;
    const r = ref && resolve(ref, p.jwks.remote?.path);
    if (r && 'problem' in r)
      return {
        reason: 'BackendNotFound',
        message: `traffic.jwtAuthentication.providers[${i}].jwks.remote.backendRef: ${r.problem}`,
      };
  }
  return undefined;
}
