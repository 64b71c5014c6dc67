// Original file: proto/gw/ir/v1/ir.proto

import type { AuthenticationMode as _gw_ir_v1_AuthenticationMode, AuthenticationMode__Output as _gw_ir_v1_AuthenticationMode__Output } from '../../../gw/ir/v1/AuthenticationMode.js';
import type { McpIdp as _gw_ir_v1_McpIdp, McpIdp__Output as _gw_ir_v1_McpIdp__Output } from '../../../gw/ir/v1/McpIdp.js';
import type { ResourceMetadata as _gw_ir_v1_ResourceMetadata, ResourceMetadata__Output as _gw_ir_v1_ResourceMetadata__Output } from '../../../gw/ir/v1/ResourceMetadata.js';
import type { JwtProvider as _gw_ir_v1_JwtProvider, JwtProvider__Output as _gw_ir_v1_JwtProvider__Output } from '../../../gw/ir/v1/JwtProvider.js';
import type { TokenLocation as _gw_ir_v1_TokenLocation, TokenLocation__Output as _gw_ir_v1_TokenLocation__Output } from '../../../gw/ir/v1/TokenLocation.js';
import type { BackendTls as _gw_ir_v1_BackendTls, BackendTls__Output as _gw_ir_v1_BackendTls__Output } from '../../../gw/ir/v1/BackendTls.js';

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
  /**
   * jwtAuthentication.providers[1..]: a token one of them verifies is accepted too. The fields above are
   * providers[0], the authorization server MCP clients discover.
   */
  'moreProviders'?: (_gw_ir_v1_JwtProvider)[];
  /**
   * Where the token is read; unset means the Authorization header with the `Bearer ` prefix.
   */
  'location'?: (_gw_ir_v1_TokenLocation | null);
  /**
   * providers[0].jwks.remote.cacheDuration: fetched keys are refetched after this long; 0 means 5 minutes.
   */
  'jwksCacheSeconds'?: (number);
  /**
   * Keys through a backendRef (providers[0].jwks.remote.backendRef, backend.mcp.authentication.jwks.backendRef):
   * TLS to the backend `jwks_url` names, as JwtProvider.jwks_tls; unset means `jwks_url` is fetched as written.
   */
  'jwksTls'?: (_gw_ir_v1_BackendTls | null);
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
  /**
   * jwtAuthentication.providers[1..]: a token one of them verifies is accepted too. The fields above are
   * providers[0], the authorization server MCP clients discover.
   */
  'moreProviders': (_gw_ir_v1_JwtProvider__Output)[];
  /**
   * Where the token is read; unset means the Authorization header with the `Bearer ` prefix.
   */
  'location': (_gw_ir_v1_TokenLocation__Output | null);
  /**
   * providers[0].jwks.remote.cacheDuration: fetched keys are refetched after this long; 0 means 5 minutes.
   */
  'jwksCacheSeconds': (number);
  /**
   * Keys through a backendRef (providers[0].jwks.remote.backendRef, backend.mcp.authentication.jwks.backendRef):
   * TLS to the backend `jwks_url` names, as JwtProvider.jwks_tls; unset means `jwks_url` is fetched as written.
   */
  'jwksTls': (_gw_ir_v1_BackendTls__Output | null);
}
