// Original file: proto/gw/ir/v1/ir.proto

import type { AuthenticationMode as _gw_ir_v1_AuthenticationMode, AuthenticationMode__Output as _gw_ir_v1_AuthenticationMode__Output } from '../../../gw/ir/v1/AuthenticationMode.js';
import type { McpIdp as _gw_ir_v1_McpIdp, McpIdp__Output as _gw_ir_v1_McpIdp__Output } from '../../../gw/ir/v1/McpIdp.js';
import type { ResourceMetadata as _gw_ir_v1_ResourceMetadata, ResourceMetadata__Output as _gw_ir_v1_ResourceMetadata__Output } from '../../../gw/ir/v1/ResourceMetadata.js';

export interface McpAuthentication {
  'mode'?: (_gw_ir_v1_AuthenticationMode);
  'issuer'?: (string);
  'audiences'?: (string)[];
  'provider'?: (_gw_ir_v1_McpIdp);
  'clientId'?: (string);
  /**
   * Secret of the gateway's own provider registration; never logged, never sent to MCP clients.
   */
  'clientSecret'?: (string);
  'resourceMetadata'?: (_gw_ir_v1_ResourceMetadata | null);
  /**
   * Signing keys: a URL, or an inline JWKS document. Both empty means derive the URL from provider/issuer.
   */
  'jwksUrl'?: (string);
  'jwksInline'?: (string);
}

export interface McpAuthentication__Output {
  'mode': (_gw_ir_v1_AuthenticationMode__Output);
  'issuer': (string);
  'audiences': (string)[];
  'provider': (_gw_ir_v1_McpIdp__Output);
  'clientId': (string);
  /**
   * Secret of the gateway's own provider registration; never logged, never sent to MCP clients.
   */
  'clientSecret': (string);
  'resourceMetadata': (_gw_ir_v1_ResourceMetadata__Output | null);
  /**
   * Signing keys: a URL, or an inline JWKS document. Both empty means derive the URL from provider/issuer.
   */
  'jwksUrl': (string);
  'jwksInline': (string);
}
