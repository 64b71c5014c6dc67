// `spec.policies.tls` and `spec.policies.tunnel` of a GwModel provider, resolved by the code that resolves
// GwPolicy `backend.tls` and `backend.tunnel` (the model is the setting object, its namespace the one
// references start in). Pure; messages name the GwModel field, never key material or a proxy credential.
// Behaviour: docs/proxy.md "Tunnels" and "GwModel connections".
import type { GwModelSpec } from '../../api/index.js';
import type { BackendTlsInput, UpstreamTunnelInput } from '../../ir/types.js';
import type { Ctx } from '../objects/context.js';
import type { FieldOrigin, MergedFields } from '../policies/policy-merge.js';
import { policyBackendResolver } from '../policies/ext-auth.js';
import { backendTls } from '../backends/backend-tls.js';
import { upstreamConnection } from '../backends/backend-connection.js';

export interface ModelConnection {
  tls?: BackendTlsInput;
  tunnel?: UpstreamTunnelInput;
}

/** The provider's TLS and tunnel, undefined when it sets neither, or why they cannot be built (the model then fails closed). */
export function modelConnection(ctx: Ctx, key: string, spec: GwModelSpec): ModelConnection | string | undefined {
  const p = spec.policies;
  if (!p?.tls && !p?.tunnel) return undefined;
  const source = `GwModel ${key}`;
  const origin: FieldOrigin = { source, level: 'BackendOwn', overridden: [] };
  const merged = {
    fields: { ...(p.tls ? { 'backend.tls': p.tls } : {}), ...(p.tunnel ? { 'backend.tunnel': p.tunnel } : {}) },
    provenance: { 'backend.tls': origin, 'backend.tunnel': origin },
  } as MergedFields;
  // The shared resolvers name the GwPolicy path (`backend.tls.…`); on a GwModel it is `spec.policies.tls.…`.
  const named = (message: string): string => message.replaceAll(`${source} backend.`, 'spec.policies.');
  const tls = backendTls(ctx, merged);
  if (!tls.ok) return named(tls.message);
  const dial = upstreamConnection(ctx, merged, policyBackendResolver(ctx, merged.provenance));
  if (!dial.ok) return named(dial.message);
  return { ...(tls.tls ? { tls: tls.tls } : {}), ...(dial.tunnel ? { tunnel: dial.tunnel } : {}) };
}
