// Original file: proto/gw/ir/v1/authorization.proto

import type { AuthorizationAction as _gw_ir_v1_AuthorizationAction, AuthorizationAction__Output as _gw_ir_v1_AuthorizationAction__Output } from '../../../gw/ir/v1/AuthorizationAction.js';

export interface AuthorizationRule {
  /**
   * CEL expressions; all must hold for the rule to match.
   */
  'expressions'?: (string)[];
  'action'?: (_gw_ir_v1_AuthorizationAction);
}

export interface AuthorizationRule__Output {
  /**
   * CEL expressions; all must hold for the rule to match.
   */
  'expressions': (string)[];
  'action': (_gw_ir_v1_AuthorizationAction__Output);
}
