// Original file: proto/gw/ir/v1/ir.proto

import type { Cors as _gw_ir_v1_Cors, Cors__Output as _gw_ir_v1_Cors__Output } from '../../../gw/ir/v1/Cors.js';
import type { McpAuthentication as _gw_ir_v1_McpAuthentication, McpAuthentication__Output as _gw_ir_v1_McpAuthentication__Output } from '../../../gw/ir/v1/McpAuthentication.js';
import type { Authorization as _gw_ir_v1_Authorization, Authorization__Output as _gw_ir_v1_Authorization__Output } from '../../../gw/ir/v1/Authorization.js';
import type { JwtAuthentication as _gw_ir_v1_JwtAuthentication, JwtAuthentication__Output as _gw_ir_v1_JwtAuthentication__Output } from '../../../gw/ir/v1/JwtAuthentication.js';
import type { BasicAuthentication as _gw_ir_v1_BasicAuthentication, BasicAuthentication__Output as _gw_ir_v1_BasicAuthentication__Output } from '../../../gw/ir/v1/BasicAuthentication.js';
import type { ApiKeyAuthentication as _gw_ir_v1_ApiKeyAuthentication, ApiKeyAuthentication__Output as _gw_ir_v1_ApiKeyAuthentication__Output } from '../../../gw/ir/v1/ApiKeyAuthentication.js';
import type { ExtAuthorization as _gw_ir_v1_ExtAuthorization, ExtAuthorization__Output as _gw_ir_v1_ExtAuthorization__Output } from '../../../gw/ir/v1/ExtAuthorization.js';
import type { ExtProcessing as _gw_ir_v1_ExtProcessing, ExtProcessing__Output as _gw_ir_v1_ExtProcessing__Output } from '../../../gw/ir/v1/ExtProcessing.js';
import type { GlobalRateLimit as _gw_ir_v1_GlobalRateLimit, GlobalRateLimit__Output as _gw_ir_v1_GlobalRateLimit__Output } from '../../../gw/ir/v1/GlobalRateLimit.js';

/**
 * The effective policy of a route. Unset messages mean "no such policy".
 */
export interface Policy {
  'cors'?: (_gw_ir_v1_Cors | null);
  'mcpAuthentication'?: (_gw_ir_v1_McpAuthentication | null);
  'authorization'?: (_gw_ir_v1_Authorization | null);
  /**
   * Largest accepted request body in bytes; 0 means the proxy default (2 MiB).
   */
  'maxRequestBytes'?: (number);
  /**
   * traffic.jwtAuthentication without `mcp`: bearer JWTs checked on any route (HTTP or MCP).
   */
  'jwtAuthentication'?: (_gw_ir_v1_JwtAuthentication | null);
  /**
   * traffic.basicAuthentication, users inline or from the policy's Secret (`.htaccess` key).
   */
  'basicAuthentication'?: (_gw_ir_v1_BasicAuthentication | null);
  /**
   * traffic.apiKeyAuthentication with secretRef: each data value of the policy's Secret is one key.
   */
  'apiKeyAuthentication'?: (_gw_ir_v1_ApiKeyAuthentication | null);
  /**
   * traffic.extAuth over HTTP: every request is first checked by an external authorization service.
   */
  'extAuthorization'?: (_gw_ir_v1_ExtAuthorization | null);
  /**
   * traffic.extProc: an external processor (Envoy's ext_proc over gRPC) sees and may change the exchange.
   */
  'extProcessing'?: (_gw_ir_v1_ExtProcessing | null);
  /**
   * backend.extAuth, the same on every backend edge of the route: asked after routing, after ext_authorization.
   */
  'backendExtAuthorization'?: (_gw_ir_v1_ExtAuthorization | null);
  /**
   * traffic.rateLimit.global: one ShouldRateLimit call per request to an Envoy rate-limit service, after
   * authentication and authorization (docs/proxy.md "Rate limits").
   */
  'globalRateLimit'?: (_gw_ir_v1_GlobalRateLimit | null);
}

/**
 * The effective policy of a route. Unset messages mean "no such policy".
 */
export interface Policy__Output {
  'cors': (_gw_ir_v1_Cors__Output | null);
  'mcpAuthentication': (_gw_ir_v1_McpAuthentication__Output | null);
  'authorization': (_gw_ir_v1_Authorization__Output | null);
  /**
   * Largest accepted request body in bytes; 0 means the proxy default (2 MiB).
   */
  'maxRequestBytes': (number);
  /**
   * traffic.jwtAuthentication without `mcp`: bearer JWTs checked on any route (HTTP or MCP).
   */
  'jwtAuthentication': (_gw_ir_v1_JwtAuthentication__Output | null);
  /**
   * traffic.basicAuthentication, users inline or from the policy's Secret (`.htaccess` key).
   */
  'basicAuthentication': (_gw_ir_v1_BasicAuthentication__Output | null);
  /**
   * traffic.apiKeyAuthentication with secretRef: each data value of the policy's Secret is one key.
   */
  'apiKeyAuthentication': (_gw_ir_v1_ApiKeyAuthentication__Output | null);
  /**
   * traffic.extAuth over HTTP: every request is first checked by an external authorization service.
   */
  'extAuthorization': (_gw_ir_v1_ExtAuthorization__Output | null);
  /**
   * traffic.extProc: an external processor (Envoy's ext_proc over gRPC) sees and may change the exchange.
   */
  'extProcessing': (_gw_ir_v1_ExtProcessing__Output | null);
  /**
   * backend.extAuth, the same on every backend edge of the route: asked after routing, after ext_authorization.
   */
  'backendExtAuthorization': (_gw_ir_v1_ExtAuthorization__Output | null);
  /**
   * traffic.rateLimit.global: one ShouldRateLimit call per request to an Envoy rate-limit service, after
   * authentication and authorization (docs/proxy.md "Rate limits").
   */
  'globalRateLimit': (_gw_ir_v1_GlobalRateLimit__Output | null);
}
