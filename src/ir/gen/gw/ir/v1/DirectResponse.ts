// Original file: proto/gw/ir/v1/traffic.proto

import type { DirectResponseHeader as _gw_ir_v1_DirectResponseHeader, DirectResponseHeader__Output as _gw_ir_v1_DirectResponseHeader__Output } from '../../../gw/ir/v1/DirectResponseHeader.js';
import type { ConditionalDirectResponse as _gw_ir_v1_ConditionalDirectResponse, ConditionalDirectResponse__Output as _gw_ir_v1_ConditionalDirectResponse__Output } from '../../../gw/ir/v1/ConditionalDirectResponse.js';

export interface DirectResponse {
  /**
   * spec.traffic.directResponse.status; 0 when only `conditional` is set.
   */
  'status'?: (number);
  /**
   * spec.traffic.directResponse.body
   */
  'body'?: (string);
  /**
   * spec.traffic.directResponse.bodyExpression (CEL); replaces `body` when set.
   */
  'bodyExpression'?: (string);
  /**
   * spec.traffic.directResponse.headers
   */
  'headers'?: (_gw_ir_v1_DirectResponseHeader)[];
  /**
   * spec.traffic.directResponse.conditional
   */
  'conditional'?: (_gw_ir_v1_ConditionalDirectResponse)[];
  '_bodyExpression'?: "bodyExpression";
}

export interface DirectResponse__Output {
  /**
   * spec.traffic.directResponse.status; 0 when only `conditional` is set.
   */
  'status': (number);
  /**
   * spec.traffic.directResponse.body
   */
  'body': (string);
  /**
   * spec.traffic.directResponse.bodyExpression (CEL); replaces `body` when set.
   */
  'bodyExpression'?: (string);
  /**
   * spec.traffic.directResponse.headers
   */
  'headers': (_gw_ir_v1_DirectResponseHeader__Output)[];
  /**
   * spec.traffic.directResponse.conditional
   */
  'conditional': (_gw_ir_v1_ConditionalDirectResponse__Output)[];
  '_bodyExpression'?: "bodyExpression";
}
