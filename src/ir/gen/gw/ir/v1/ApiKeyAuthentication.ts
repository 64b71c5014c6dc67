// Original file: proto/gw/ir/v1/ir.proto

import type { AuthenticationMode as _gw_ir_v1_AuthenticationMode, AuthenticationMode__Output as _gw_ir_v1_AuthenticationMode__Output } from '../../../gw/ir/v1/AuthenticationMode.js';
import type { TokenLocation as _gw_ir_v1_TokenLocation, TokenLocation__Output as _gw_ir_v1_TokenLocation__Output } from '../../../gw/ir/v1/TokenLocation.js';
import type { ApiKeyEntry as _gw_ir_v1_ApiKeyEntry, ApiKeyEntry__Output as _gw_ir_v1_ApiKeyEntry__Output } from '../../../gw/ir/v1/ApiKeyEntry.js';

export interface ApiKeyAuthentication {
  'mode'?: (_gw_ir_v1_AuthenticationMode);
  /**
   * Unset means the Authorization header with the `Bearer ` prefix.
   */
  'location'?: (_gw_ir_v1_TokenLocation | null);
  /**
   * One per accepted key, sorted by hash; the keys themselves never enter the IR.
   */
  'entries'?: (_gw_ir_v1_ApiKeyEntry)[];
}

export interface ApiKeyAuthentication__Output {
  'mode': (_gw_ir_v1_AuthenticationMode__Output);
  /**
   * Unset means the Authorization header with the `Bearer ` prefix.
   */
  'location': (_gw_ir_v1_TokenLocation__Output | null);
  /**
   * One per accepted key, sorted by hash; the keys themselves never enter the IR.
   */
  'entries': (_gw_ir_v1_ApiKeyEntry__Output)[];
}
