// Original file: proto/gw/ir/v1/ir.proto

import type { AuthenticationMode as _gw_ir_v1_AuthenticationMode, AuthenticationMode__Output as _gw_ir_v1_AuthenticationMode__Output } from '../../../gw/ir/v1/AuthenticationMode.js';
import type { BasicUser as _gw_ir_v1_BasicUser, BasicUser__Output as _gw_ir_v1_BasicUser__Output } from '../../../gw/ir/v1/BasicUser.js';
import type { TokenLocation as _gw_ir_v1_TokenLocation, TokenLocation__Output as _gw_ir_v1_TokenLocation__Output } from '../../../gw/ir/v1/TokenLocation.js';

export interface BasicAuthentication {
  /**
   * STRICT (default) or OPTIONAL.
   */
  'mode'?: (_gw_ir_v1_AuthenticationMode);
  'realm'?: (string);
  'users'?: (_gw_ir_v1_BasicUser)[];
  /**
   * Where `user:password` (base64) is read; unset means the Authorization header with the `Basic ` prefix.
   */
  'location'?: (_gw_ir_v1_TokenLocation | null);
}

export interface BasicAuthentication__Output {
  /**
   * STRICT (default) or OPTIONAL.
   */
  'mode': (_gw_ir_v1_AuthenticationMode__Output);
  'realm': (string);
  'users': (_gw_ir_v1_BasicUser__Output)[];
  /**
   * Where `user:password` (base64) is read; unset means the Authorization header with the `Basic ` prefix.
   */
  'location': (_gw_ir_v1_TokenLocation__Output | null);
}
