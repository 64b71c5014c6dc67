// Original file: proto/gw/ir/v1/ir.proto

import type { ExtAuthorizationBranch as _gw_ir_v1_ExtAuthorizationBranch, ExtAuthorizationBranch__Output as _gw_ir_v1_ExtAuthorizationBranch__Output } from '../../../gw/ir/v1/ExtAuthorizationBranch.js';
import type { ExtAuthorizationCache as _gw_ir_v1_ExtAuthorizationCache, ExtAuthorizationCache__Output as _gw_ir_v1_ExtAuthorizationCache__Output } from '../../../gw/ir/v1/ExtAuthorizationCache.js';

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
}
