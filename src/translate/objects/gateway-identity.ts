// Whether a Gateway's proxy will hold a workload identity: its effective GwParameters (gateway level over
// class level, as the deployer merges them) set `spiffe` (the Workload API socket) or `istio.enabled` (the
// mesh CA). What needs one — the listener option `tls-certificate-source: SPIFFE`, backends with
// `certificateSource: SPIFFE` — is refused on status without it, never served with another certificate.
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
    if (own?.istio?.enabled ?? classParams?.istio?.enabled) return 'istio';
    return undefined;
  });
}

/** Why `what` cannot be served on the Gateway being translated, or undefined when its proxy has an identity. */
export function missingIdentity(ctx: Ctx, what: string): string | undefined {
  const gw = ctx.gateway;
  if (!gw || gatewayIdentity(ctx, gw)) return undefined;
  return `${what} needs the proxy's workload identity, and the GwParameters of Gateway ${gw.key} set neither spiffe nor istio.enabled`;
}
