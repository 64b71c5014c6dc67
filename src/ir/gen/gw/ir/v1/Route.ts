// Original file: proto/gw/ir/v1/ir.proto

import type { PathMatch as _gw_ir_v1_PathMatch, PathMatch__Output as _gw_ir_v1_PathMatch__Output } from '../../../gw/ir/v1/PathMatch.js';
import type { BackendRef as _gw_ir_v1_BackendRef, BackendRef__Output as _gw_ir_v1_BackendRef__Output } from '../../../gw/ir/v1/BackendRef.js';
import type { Policy as _gw_ir_v1_Policy, Policy__Output as _gw_ir_v1_Policy__Output } from '../../../gw/ir/v1/Policy.js';
import type { PolicyFields as _gw_ir_v1_PolicyFields, PolicyFields__Output as _gw_ir_v1_PolicyFields__Output } from '../../../gw/ir/v1/PolicyFields.js';
import type { RouteMatch as _gw_ir_v1_RouteMatch, RouteMatch__Output as _gw_ir_v1_RouteMatch__Output } from '../../../gw/ir/v1/RouteMatch.js';
import type { RouteOrder as _gw_ir_v1_RouteOrder, RouteOrder__Output as _gw_ir_v1_RouteOrder__Output } from '../../../gw/ir/v1/RouteOrder.js';
import type { RouteTimeouts as _gw_ir_v1_RouteTimeouts, RouteTimeouts__Output as _gw_ir_v1_RouteTimeouts__Output } from '../../../gw/ir/v1/RouteTimeouts.js';
import type { RouteFilters as _gw_ir_v1_RouteFilters, RouteFilters__Output as _gw_ir_v1_RouteFilters__Output } from '../../../gw/ir/v1/RouteFilters.js';
import type { TrafficPolicy as _gw_ir_v1_TrafficPolicy, TrafficPolicy__Output as _gw_ir_v1_TrafficPolicy__Output } from '../../../gw/ir/v1/TrafficPolicy.js';
import type { Refusal as _gw_ir_v1_Refusal, Refusal__Output as _gw_ir_v1_Refusal__Output } from '../../../gw/ir/v1/Refusal.js';
import type { UnservedBackend as _gw_ir_v1_UnservedBackend, UnservedBackend__Output as _gw_ir_v1_UnservedBackend__Output } from '../../../gw/ir/v1/UnservedBackend.js';

export interface Route {
  'name'?: (string);
  /**
   * Names of the parent Listeners.
   */
  'listeners'?: (string)[];
  /**
   * Deprecated: the path-only matches of IR before `route_matches`. Producers no longer write it;
   * the proxy still reads it when `route_matches` is empty, so a newer proxy serves an older
   * controller's snapshots during a rollout.
   * @deprecated
   */
  'matches'?: (_gw_ir_v1_PathMatch)[];
  'backends'?: (_gw_ir_v1_BackendRef)[];
  /**
   * Effective, already merged policy for traffic on this route.
   */
  'policy'?: (_gw_ir_v1_Policy | null);
  /**
   * Optional provenance: policy field path (e.g. `cors`, `mcp_authentication.issuer`) → source object
   * (`GwPolicy default/p1`, `file config.yaml`). Diagnostics only; the runtime never reads it.
   */
  'provenance'?: ({[key: string]: string});
  /**
   * Route host names intersected with the listener's; empty means the listener's.
   */
  'hostnames'?: (string)[];
  /**
   * Every effective traffic.* and backend.* field, merged, with provenance (`gw explain`). Never sent to
   * proxies: the controller leaves it out of the wire (src/controller/snapshot-source.ts).
   */
  'effective'?: (_gw_ir_v1_PolicyFields | null);
  /**
   * Any match selects the route (OR); an empty list matches every request.
   */
  'routeMatches'?: (_gw_ir_v1_RouteMatch)[];
  /**
   * Tie-breakers of Gateway API matching precedence, after the specificity of the matches themselves.
   */
  'order'?: (_gw_ir_v1_RouteOrder | null);
  /**
   * HTTPRoute rule `timeouts`; unset means none. On MCP routes they bound each call to a target.
   */
  'timeouts'?: (_gw_ir_v1_RouteTimeouts | null);
  /**
   * Gateway API HTTPRoute rule `filters` the proxy runs; unset means none. See docs/proxy.md "Route filters".
   */
  'filters'?: (_gw_ir_v1_RouteFilters | null);
  /**
   * GwPolicy `traffic` settings, typed.
   */
  'traffic'?: (_gw_ir_v1_TrafficPolicy | null);
  /**
   * Every refused field that reaches this route (its own policies, its listener's, its backend edges'):
   * any with `security` set makes the proxy answer 503 policy_not_enforced.
   */
  'refusals'?: (_gw_ir_v1_Refusal)[];
  /**
   * Why backend refs of the rule were left out (a credential or TLS that cannot be set up, a backend that
   * does not exist): with no backend left, the proxy's 500 names them. Names objects, never a secret's value.
   */
  'unservedBackends'?: (_gw_ir_v1_UnservedBackend)[];
}

export interface Route__Output {
  'name': (string);
  /**
   * Names of the parent Listeners.
   */
  'listeners': (string)[];
  /**
   * Deprecated: the path-only matches of IR before `route_matches`. Producers no longer write it;
   * the proxy still reads it when `route_matches` is empty, so a newer proxy serves an older
   * controller's snapshots during a rollout.
   * @deprecated
   */
  'matches': (_gw_ir_v1_PathMatch__Output)[];
  'backends': (_gw_ir_v1_BackendRef__Output)[];
  /**
   * Effective, already merged policy for traffic on this route.
   */
  'policy': (_gw_ir_v1_Policy__Output | null);
  /**
   * Optional provenance: policy field path (e.g. `cors`, `mcp_authentication.issuer`) → source object
   * (`GwPolicy default/p1`, `file config.yaml`). Diagnostics only; the runtime never reads it.
   */
  'provenance': ({[key: string]: string});
  /**
   * Route host names intersected with the listener's; empty means the listener's.
   */
  'hostnames': (string)[];
  /**
   * Every effective traffic.* and backend.* field, merged, with provenance (`gw explain`). Never sent to
   * proxies: the controller leaves it out of the wire (src/controller/snapshot-source.ts).
   */
  'effective': (_gw_ir_v1_PolicyFields__Output | null);
  /**
   * Any match selects the route (OR); an empty list matches every request.
   */
  'routeMatches': (_gw_ir_v1_RouteMatch__Output)[];
  /**
   * Tie-breakers of Gateway API matching precedence, after the specificity of the matches themselves.
   */
  'order': (_gw_ir_v1_RouteOrder__Output | null);
  /**
   * HTTPRoute rule `timeouts`; unset means none. On MCP routes they bound each call to a target.
   */
  'timeouts': (_gw_ir_v1_RouteTimeouts__Output | null);
  /**
   * Gateway API HTTPRoute rule `filters` the proxy runs; unset means none. See docs/proxy.md "Route filters".
   */
  'filters': (_gw_ir_v1_RouteFilters__Output | null);
  /**
   * GwPolicy `traffic` settings, typed.
   */
  'traffic': (_gw_ir_v1_TrafficPolicy__Output | null);
  /**
   * Every refused field that reaches this route (its own policies, its listener's, its backend edges'):
   * any with `security` set makes the proxy answer 503 policy_not_enforced.
   */
  'refusals': (_gw_ir_v1_Refusal__Output)[];
  /**
   * Why backend refs of the rule were left out (a credential or TLS that cannot be set up, a backend that
   * does not exist): with no backend left, the proxy's 500 names them. Names objects, never a secret's value.
   */
  'unservedBackends': (_gw_ir_v1_UnservedBackend__Output)[];
}
