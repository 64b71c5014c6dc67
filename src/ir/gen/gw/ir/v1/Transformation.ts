// Original file: proto/gw/ir/v1/traffic.proto

import type { TransformationStep as _gw_ir_v1_TransformationStep, TransformationStep__Output as _gw_ir_v1_TransformationStep__Output } from '../../../gw/ir/v1/TransformationStep.js';

/**
 * GwPolicy `transformation` (traffic, or backend on a route → backend edge): CEL edits of the request before
 * it is sent and of the answer before it is passed on. Every expression is compiled once per snapshot.
 */
export interface Transformation {
  'request'?: (_gw_ir_v1_TransformationStep | null);
  'response'?: (_gw_ir_v1_TransformationStep | null);
}

/**
 * GwPolicy `transformation` (traffic, or backend on a route → backend edge): CEL edits of the request before
 * it is sent and of the answer before it is passed on. Every expression is compiled once per snapshot.
 */
export interface Transformation__Output {
  'request': (_gw_ir_v1_TransformationStep__Output | null);
  'response': (_gw_ir_v1_TransformationStep__Output | null);
}
