// Original file: proto/gw/ir/v1/ir.proto

import type { AiProviderEdge as _gw_ir_v1_AiProviderEdge, AiProviderEdge__Output as _gw_ir_v1_AiProviderEdge__Output } from '../../../gw/ir/v1/AiProviderEdge.js';
import type { AiRouteType as _gw_ir_v1_AiRouteType, AiRouteType__Output as _gw_ir_v1_AiRouteType__Output } from '../../../gw/ir/v1/AiRouteType.js';
import type { Refusal as _gw_ir_v1_Refusal, Refusal__Output as _gw_ir_v1_Refusal__Output } from '../../../gw/ir/v1/Refusal.js';

/**
 * What the proxy needs per route → `ai` backend edge, resolved from the edge's merged `backend.auth`
 * and `backend.ai` (per provider, including the provider's own and sectionName-targeted policies).
 * Credential keys are secret material: carried only on the authenticated xDS stream, never logged.
 */
export interface AiEdge {
  /**
   * Provider name → its settings; every provider of the backend has an entry.
   */
  'providers'?: ({[key: string]: _gw_ir_v1_AiProviderEdge});
  /**
   * `backend.ai.routes` of the edge: URL path suffix (ends-with match, or `*`) → route type. Empty means
   * every path is a chat completions request.
   */
  'routes'?: ({[key: string]: _gw_ir_v1_AiRouteType});
  /**
   * `backend.ai` fields of the edge or of one of its providers that this release does not apply
   * (none today; src/translate/backends/backend-ai.ts aiEdgeRefusals): the proxy refuses the edge
   * (`policy_not_enforced` when one concerns security, else `provider_not_supported`) rather than serve
   * it without them.
   */
  'refusals'?: (_gw_ir_v1_Refusal)[];
}

/**
 * What the proxy needs per route → `ai` backend edge, resolved from the edge's merged `backend.auth`
 * and `backend.ai` (per provider, including the provider's own and sectionName-targeted policies).
 * Credential keys are secret material: carried only on the authenticated xDS stream, never logged.
 */
export interface AiEdge__Output {
  /**
   * Provider name → its settings; every provider of the backend has an entry.
   */
  'providers': ({[key: string]: _gw_ir_v1_AiProviderEdge__Output});
  /**
   * `backend.ai.routes` of the edge: URL path suffix (ends-with match, or `*`) → route type. Empty means
   * every path is a chat completions request.
   */
  'routes': ({[key: string]: _gw_ir_v1_AiRouteType__Output});
  /**
   * `backend.ai` fields of the edge or of one of its providers that this release does not apply
   * (none today; src/translate/backends/backend-ai.ts aiEdgeRefusals): the proxy refuses the edge
   * (`policy_not_enforced` when one concerns security, else `provider_not_supported`) rather than serve
   * it without them.
   */
  'refusals': (_gw_ir_v1_Refusal__Output)[];
}
