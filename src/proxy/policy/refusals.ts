// Which security settings of a route this proxy will not enforce, so the route answers 503
// policy_not_enforced instead of serving unchecked. The translator decides refusals once (`Route.refusals`);
// the proxy adds only what it alone knows: a runtime started without the route security factory.
import type { Route } from '../../ir/types.js';

export interface AuthEnforcement {
  /** Whether the runtime was given the route security factory (JWT and MCP auth, CEL authorization). */
  security: boolean;
}

/** Field paths of the route's security refusals, sorted; empty means the route may serve. */
export function refusedSecurity(route: Route, how: AuthEnforcement): string[] {
  const out = new Set((route.refusals ?? []).filter((r) => r.security).map((r) => r.field));
  if (!how.security) {
    const p = route.policy;
    if (p?.jwtAuthentication || p?.mcpAuthentication) out.add('spec.traffic.jwtAuthentication');
    if (p?.basicAuthentication) out.add('spec.traffic.basicAuthentication');
    if (p?.apiKeyAuthentication) out.add('spec.traffic.apiKeyAuthentication');
    if (p?.authorization) out.add('spec.traffic.authorization');
  }
  return [...out].sort();
}
