// Original file: proto/gw/ir/v1/authorization.proto

import type { AuthorizationRule as _gw_ir_v1_AuthorizationRule, AuthorizationRule__Output as _gw_ir_v1_AuthorizationRule__Output } from '../../../gw/ir/v1/AuthorizationRule.js';

export interface Authorization {
  'rules'?: (_gw_ir_v1_AuthorizationRule)[];
}

export interface Authorization__Output {
  'rules': (_gw_ir_v1_AuthorizationRule__Output)[];
}
