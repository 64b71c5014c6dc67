// Original file: proto/gw/ir/v1/ir.proto

import type { ExtAuthorization as _gw_ir_v1_ExtAuthorization, ExtAuthorization__Output as _gw_ir_v1_ExtAuthorization__Output } from '../../../gw/ir/v1/ExtAuthorization.js';

export interface ExtAuthorizationBranch {
  /**
   * CEL over request.* and jwt.*; empty for the fallback (the last branch only).
   */
  'condition'?: (string);
  'policy'?: (_gw_ir_v1_ExtAuthorization | null);
}

export interface ExtAuthorizationBranch__Output {
  /**
   * CEL over request.* and jwt.*; empty for the fallback (the last branch only).
   */
  'condition': (string);
  'policy': (_gw_ir_v1_ExtAuthorization__Output | null);
}
