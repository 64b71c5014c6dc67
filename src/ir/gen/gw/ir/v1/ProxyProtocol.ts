// Original file: proto/gw/ir/v1/ir.proto

import type { ProxyProtocolVersion as _gw_ir_v1_ProxyProtocolVersion, ProxyProtocolVersion__Output as _gw_ir_v1_ProxyProtocolVersion__Output } from '../../../gw/ir/v1/ProxyProtocolVersion.js';
import type { ProxyProtocolMode as _gw_ir_v1_ProxyProtocolMode, ProxyProtocolMode__Output as _gw_ir_v1_ProxyProtocolMode__Output } from '../../../gw/ir/v1/ProxyProtocolMode.js';

/**
 * GwPolicy `frontend.proxyProtocol` (docs/proxy.md "PROXY protocol").
 */
export interface ProxyProtocol {
  /**
   * Unspecified: V2 (the API's default).
   */
  'version'?: (_gw_ir_v1_ProxyProtocolVersion);
  /**
   * Unspecified: Strict (the API's default).
   */
  'mode'?: (_gw_ir_v1_ProxyProtocolMode);
}

/**
 * GwPolicy `frontend.proxyProtocol` (docs/proxy.md "PROXY protocol").
 */
export interface ProxyProtocol__Output {
  /**
   * Unspecified: V2 (the API's default).
   */
  'version': (_gw_ir_v1_ProxyProtocolVersion__Output);
  /**
   * Unspecified: Strict (the API's default).
   */
  'mode': (_gw_ir_v1_ProxyProtocolMode__Output);
}
