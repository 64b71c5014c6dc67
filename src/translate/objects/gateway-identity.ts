// Whether a Gateway's proxy will hold a workload identity: its effective GwParameters (gateway level over
// class level, as the deployer merges them) set `spiffe` (the Workload API socket) or `istio.enabled` (the
// mesh CA; left unset, on for the built-in class under --istio-auto-enabled). What needs one — the listener option `tls-certificate-source: SPIFFE`, backends with
// `certificateSource: SPIFFE` — is refused on status without it, never served with another certificate.
import type { GwBackendSpec } from '../../api/index.js';
import { gwSpec } from './gw-objects.js';
import { memo, readAny, type Ctx } from './context.js';
import { gatewayClassSpec, gatewaySpec } from './gateway-api.js';
import type { StoredObject } from './types.js';

/** The identity source the proxy of `gw` is deployed with; undefined when none. */
export function gatewayIdentity(ctx: Ctx, gw: StoredObject): 'spiffe' | 'istio' | undefined {
  return memo(ctx, `identity:${gw.key}`, () => {
    const className = gatewaySpec(gw).gatewayClassName ?? '';
    const cls = readAny(ctx, 'GatewayClass', className);
    const classRef = (cls && gatewayClassSpec(cls).parametersRef) ?? ctx.options.classParametersRefs?.[className];
    const classParams =
      classRef && (!('kind' in classRef) || classRef.kind === 'GwParameters')
        ? gwSpec('GwParameters', readAny(ctx, 'GwParameters', `${classRef.namespace ?? ''}/${classRef.name ?? ''}`))
        : undefined;
    const ref = gatewaySpec(gw).infrastructure?.parametersRef;
    const own =
      ref?.kind === 'GwParameters'
        ? gwSpec('GwParameters', readAny(ctx, 'GwParameters', `${gw.obj.metadata.namespace ?? ''}/${ref.name ?? ''}`))
        : undefined;
    if (own?.spiffe ?? classParams?.spiffe) return 'spiffe';
    // Unset at both levels: on for the built-in class when the controller runs with --istio-auto-enabled.
    if (own?.istio?.enabled ?? classParams?.istio?.enabled ?? className === ctx.options.istioAutoEnabledClass)
      return 'istio';
    return undefined;
  });
}

/** Whether the proxy of the Gateway being translated has no workload identity (false outside a gateway's translation). */
export function lacksIdentity(ctx: Ctx): boolean {
  return ctx.gateway !== undefined && gatewayIdentity(ctx, ctx.gateway) === undefined;
}

/** Why `what` cannot be served on the Gateway being translated, or undefined when its proxy has an identity. */
export function missingIdentity(ctx: Ctx, what: string): string | undefined {
  return ctx.gateway && lacksIdentity(ctx) ? identityMissingText(what, [ctx.gateway.key]) : undefined;
}

/** `what` (a field and its value) is not served through these Gateways, one sentence for statuses. */
export function identityMissingText(what: string, gatewayKeys: readonly string[]): string {
  return `${what} needs the proxy's workload identity, and the GwParameters of Gateway ${gatewayList(gatewayKeys)} set neither spiffe nor istio.enabled`;
}

/** Gateways a status message names at most; the rest are counted, so a message stays far below its 32768 characters. */
export const NAMED_GATEWAYS = 16;

/** `ns/a, ns/b` or, past NAMED_GATEWAYS, the first of them `and N more`. */
export function gatewayList(keys: readonly string[]): string {
  const named = keys.slice(0, NAMED_GATEWAYS).join(', ');
  return keys.length > NAMED_GATEWAYS ? `${named} and ${keys.length - NAMED_GATEWAYS} more` : named;
}

/** The paths of a GwBackend's `certificateSource: SPIFFE` settings (own, per MCP target, per AI provider). */
export function backendIdentityFields(spec: GwBackendSpec): string[] {
  const at = (path: string, p: { tls?: { certificateSource?: string } } | undefined): string[] =>
    p?.tls?.certificateSource === 'SPIFFE' ? [`${path}.policies.tls.certificateSource`] : [];
  return [
    ...at('spec', spec.policies),
    ...(spec.mcp?.targets ?? []).flatMap((t, i) => at(`spec.mcp.targets[${i}].static`, t.static?.policies)),
    ...(spec.ai?.groups ?? []).flatMap((g, gi) =>
      g.providers.flatMap((p, pi) => at(`spec.ai.groups[${gi}].providers[${pi}]`, p.policies)),
    ),
  ];
}
