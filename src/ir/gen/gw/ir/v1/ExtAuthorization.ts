// Original file: proto/gw/ir/v1/ir.proto

import type { ExtAuthorizationBranch as _gw_ir_v1_ExtAuthorizationBranch, ExtAuthorizationBranch__Output as _gw_ir_v1_ExtAuthorizationBranch__Output } from '../../../gw/ir/v1/ExtAuthorizationBranch.js';
import type { ExtAuthorizationCache as _gw_ir_v1_ExtAuthorizationCache, ExtAuthorizationCache__Output as _gw_ir_v1_ExtAuthorizationCache__Output } from '../../../gw/ir/v1/ExtAuthorizationCache.js';
import type { ExtAuthorizationGrpc as _gw_ir_v1_ExtAuthorizationGrpc, ExtAuthorizationGrpc__Output as _gw_ir_v1_ExtAuthorizationGrpc__Output } from '../../../gw/ir/v1/ExtAuthorizationGrpc.js';
import type { BackendTls as _gw_ir_v1_BackendTls, BackendTls__Output as _gw_ir_v1_BackendTls__Output } from '../../../gw/ir/v1/BackendTls.js';

/**
 * An external authorization service asked over HTTP before the request reaches its backend (docs/auth.md
 * "External authorization"). An answer of 200 allows; any other answer is sent back to the client.
 */
export interface ExtAuthorization {
  /**
   * http(s)://host:port[/base]: the client's path is appended unless `path_expression` is set.
   */
  'url'?: (string);
  /**
   * FailOpen: the request continues when the service cannot be asked (unreachable, timeout, 5xx).
   */
  'failOpen'?: (boolean);
  /**
   * Lower-case names of client headers copied onto the check request.
   */
  'allowedRequestHeaders'?: (string)[];
  /**
   * Header name (lower case) → CEL expression whose string value is added to the check request.
   */
  'addRequestHeaders'?: ({[key: string]: string});
  /**
   * Lower-case names of headers of the service's 200 answer copied onto the upstream request.
   */
  'allowedResponseHeaders'?: (string)[];
  /**
   * CEL expression giving the check request's path; empty means the service URL's path + the client's path.
   */
  'pathExpression'?: (string);
  /**
   * Set (forwardBody): the client body, at most `max_body_bytes`, is sent along; a larger one gets 413.
   */
  'forwardBody'?: (boolean);
  'maxBodyBytes'?: (number);
  /**
   * traffic.extAuth.conditional: the first branch whose condition holds (or that has none, the fallback)
   * decides which service is asked; when none holds the request is not checked. The fields above are unused.
   */
  'conditional'?: (_gw_ir_v1_ExtAuthorizationBranch)[];
  /**
   * Decisions (allow or deny, never a failed call) kept per key; unset means every request asks.
   */
  'cache'?: (_gw_ir_v1_ExtAuthorizationCache | null);
  /**
   * traffic.extAuth.grpc: the service is asked over Envoy's gRPC protocol (envoy.service.auth.v3.Authorization/Check)
   * at `url`'s host and port; the HTTP-only fields above (headers, path) are unused.
   */
  'grpc'?: (_gw_ir_v1_ExtAuthorizationGrpc | null);
  /**
   * TLS towards the service: from the backend.tls of the GwBackend its backendRef names. Unset with an https://
   * (or grpcs://) url: TLS against the system roots.
   */
  'tls'?: (_gw_ir_v1_BackendTls | null);
  /**
   * http.redirect: CEL over request.* and jwt.*; a denial answered 401 becomes a 302 to this URL.
   */
  'redirectExpression'?: (string);
  /**
   * http.body: CEL over request.* and jwt.* whose string value is the check request's body.
   */
  'bodyExpression'?: (string);
  /**
   * http.responseMetadata: name → CEL over `response` (the service's 200 answer: status, headers) and request.*,
   * jwt.*; the values are `extauthz.<name>` for later CEL authorization rules and the access log.
   */
  'responseMetadata'?: ({[key: string]: string});
}

/**
 * An external authorization service asked over HTTP before the request reaches its backend (docs/auth.md
 * "External authorization"). An answer of 200 allows; any other answer is sent back to the client.
 */
export interface ExtAuthorization__Output {
  /**
   * http(s)://host:port[/base]: the client's path is appended unless `path_expression` is set.
   */
  'url': (string);
  /**
   * FailOpen: the request continues when the service cannot be asked (unreachable, timeout, 5xx).
   */
  'failOpen': (boolean);
  /**
   * Lower-case names of client headers copied onto the check request.
   */
  'allowedRequestHeaders': (string)[];
  /**
   * Header name (lower case) → CEL expression whose string value is added to the check request.
   */
  'addRequestHeaders': ({[key: string]: string});
  /**
   * Lower-case names of headers of the service's 200 answer copied onto the upstream request.
   */
  'allowedResponseHeaders': (string)[];
  /**
   * CEL expression giving the check request's path; empty means the service URL's path + the client's path.
   */
  'pathExpression': (string);
  /**
   * Set (forwardBody): the client body, at most `max_body_bytes`, is sent along; a larger one gets 413.
   */
  'forwardBody': (boolean);
  'maxBodyBytes': (number);
  /**
   * traffic.extAuth.conditional: the first branch whose condition holds (or that has none, the fallback)
   * decides which service is asked; when none holds the request is not checked. The fields above are unused.
   */
  'conditional': (_gw_ir_v1_ExtAuthorizationBranch__Output)[];
  /**
   * Decisions (allow or deny, never a failed call) kept per key; unset means every request asks.
   */
  'cache': (_gw_ir_v1_ExtAuthorizationCache__Output | null);
  /**
   * traffic.extAuth.grpc: the service is asked over Envoy's gRPC protocol (envoy.service.auth.v3.Authorization/Check)
   * at `url`'s host and port; the HTTP-only fields above (headers, path) are unused.
   */
  'grpc': (_gw_ir_v1_ExtAuthorizationGrpc__Output | null);
  /**
   * TLS towards the service: from the backend.tls of the GwBackend its backendRef names. Unset with an https://
   * (or grpcs://) url: TLS against the system roots.
   */
  'tls': (_gw_ir_v1_BackendTls__Output | null);
  /**
   * http.redirect: CEL over request.* and jwt.*; a denial answered 401 becomes a 302 to this URL.
   */
  'redirectExpression': (string);
  /**
   * http.body: CEL over request.* and jwt.* whose string value is the check request's body.
   */
  'bodyExpression': (string);
  /**
   * http.responseMetadata: name → CEL over `response` (the service's 200 answer: status, headers) and request.*,
   * jwt.*; the values are `extauthz.<name>` for later CEL authorization rules and the access log.
   */
  'responseMetadata': ({[key: string]: string});
}
