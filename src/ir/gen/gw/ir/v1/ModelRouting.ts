// Original file: proto/gw/ir/v1/ir_translate.proto

import type { ModelRoutingKind as _gw_ir_v1_ModelRoutingKind, ModelRoutingKind__Output as _gw_ir_v1_ModelRoutingKind__Output } from '../../../gw/ir/v1/ModelRoutingKind.js';
import type { ModelTarget as _gw_ir_v1_ModelTarget, ModelTarget__Output as _gw_ir_v1_ModelTarget__Output } from '../../../gw/ir/v1/ModelTarget.js';

export interface ModelRouting {
  'kind'?: (_gw_ir_v1_ModelRoutingKind);
  /**
   * Failover: sorted by priority (stable for ties); conditional: first match wins.
   */
  'targets'?: (_gw_ir_v1_ModelTarget)[];
}

export interface ModelRouting__Output {
  'kind': (_gw_ir_v1_ModelRoutingKind__Output);
  /**
   * Failover: sorted by priority (stable for ties); conditional: first match wins.
   */
  'targets': (_gw_ir_v1_ModelTarget__Output)[];
}
