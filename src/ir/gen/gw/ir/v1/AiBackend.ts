// Original file: proto/gw/ir/v1/ir.proto

import type { AiGroup as _gw_ir_v1_AiGroup, AiGroup__Output as _gw_ir_v1_AiGroup__Output } from '../../../gw/ir/v1/AiGroup.js';

/**
 * An `ai` backend's providers; their credentials and policies ride on each route's BackendRef (AiEdge).
 */
export interface AiBackend {
  /**
   * Priority groups in order; one group with one provider for `spec.ai.provider`.
   */
  'groups'?: (_gw_ir_v1_AiGroup)[];
}

/**
 * An `ai` backend's providers; their credentials and policies ride on each route's BackendRef (AiEdge).
 */
export interface AiBackend__Output {
  /**
   * Priority groups in order; one group with one provider for `spec.ai.provider`.
   */
  'groups': (_gw_ir_v1_AiGroup__Output)[];
}
