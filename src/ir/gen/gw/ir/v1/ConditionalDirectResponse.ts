// Original file: proto/gw/ir/v1/traffic.proto

import type { DirectResponse as _gw_ir_v1_DirectResponse, DirectResponse__Output as _gw_ir_v1_DirectResponse__Output } from '../../../gw/ir/v1/DirectResponse.js';

export interface ConditionalDirectResponse {
  /**
   * spec.traffic.directResponse.conditional[].condition (CEL); unset on the fallback entry.
   */
  'condition'?: (string);
  /**
   * spec.traffic.directResponse.conditional[].response
   */
  'response'?: (_gw_ir_v1_DirectResponse | null);
  '_condition'?: "condition";
}

export interface ConditionalDirectResponse__Output {
  /**
   * spec.traffic.directResponse.conditional[].condition (CEL); unset on the fallback entry.
   */
  'condition'?: (string);
  /**
   * spec.traffic.directResponse.conditional[].response
   */
  'response': (_gw_ir_v1_DirectResponse__Output | null);
  '_condition'?: "condition";
}
