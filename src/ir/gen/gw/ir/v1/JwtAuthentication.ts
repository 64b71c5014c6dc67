// Original file: proto/gw/ir/v1/ir.proto

import type { AuthenticationMode as _gw_ir_v1_AuthenticationMode, AuthenticationMode__Output as _gw_ir_v1_AuthenticationMode__Output } from '../../../gw/ir/v1/AuthenticationMode.js';
import type { JwtProvider as _gw_ir_v1_JwtProvider, JwtProvider__Output as _gw_ir_v1_JwtProvider__Output } from '../../../gw/ir/v1/JwtProvider.js';
import type { TokenLocation as _gw_ir_v1_TokenLocation, TokenLocation__Output as _gw_ir_v1_TokenLocation__Output } from '../../../gw/ir/v1/TokenLocation.js';

export interface JwtAuthentication {
  'mode'?: (_gw_ir_v1_AuthenticationMode);
  /**
   * A token is checked against every provider whose issuer equals its `iss`.
   */
  'providers'?: (_gw_ir_v1_JwtProvider)[];
  /**
   * Where the token is read; unset means the Authorization header with the `Bearer ` prefix.
   */
  'location'?: (_gw_ir_v1_TokenLocation | null);
  /**
   * False: the credential is removed from the request before it is forwarded.
   */
  'preserveToken'?: (boolean);
}

export interface JwtAuthentication__Output {
  'mode': (_gw_ir_v1_AuthenticationMode__Output);
  /**
   * A token is checked against every provider whose issuer equals its `iss`.
   */
  'providers': (_gw_ir_v1_JwtProvider__Output)[];
  /**
   * Where the token is read; unset means the Authorization header with the `Bearer ` prefix.
   */
  'location': (_gw_ir_v1_TokenLocation__Output | null);
  /**
   * False: the credential is removed from the request before it is forwarded.
   */
  'preserveToken': (boolean);
}
