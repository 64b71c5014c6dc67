// Original file: proto/gw/ir/v1/ir.proto

import type { AuthenticationMode as _gw_ir_v1_AuthenticationMode, AuthenticationMode__Output as _gw_ir_v1_AuthenticationMode__Output } from '../../../gw/ir/v1/AuthenticationMode.js';
import type { TokenLocation as _gw_ir_v1_TokenLocation, TokenLocation__Output as _gw_ir_v1_TokenLocation__Output } from '../../../gw/ir/v1/TokenLocation.js';

export interface ApiKeyAuthentication {
  'mode'?: (_gw_ir_v1_AuthenticationMode);
  /**
   * Lower-case hex SHA-256 of each accepted key; the keys themselves never enter the IR.
   */
  'keySha256'?: (string)[];
  /**
   * Unset means the Authorization header with the `Bearer ` prefix.
   */
  'location'?: (_gw_ir_v1_TokenLocation | null);
}

export interface ApiKeyAuthentication__Output {
  'mode': (_gw_ir_v1_AuthenticationMode__Output);
  /**
   * Lower-case hex SHA-256 of each accepted key; the keys themselves never enter the IR.
   */
  'keySha256': (string)[];
  /**
   * Unset means the Authorization header with the `Bearer ` prefix.
   */
  'location': (_gw_ir_v1_TokenLocation__Output | null);
}
