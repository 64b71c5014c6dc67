// Original file: proto/gw/ir/v1/ir.proto

import type { PathMatch as _gw_ir_v1_PathMatch, PathMatch__Output as _gw_ir_v1_PathMatch__Output } from '../../../gw/ir/v1/PathMatch.js';
import type { ValueMatch as _gw_ir_v1_ValueMatch, ValueMatch__Output as _gw_ir_v1_ValueMatch__Output } from '../../../gw/ir/v1/ValueMatch.js';

/**
 * One HTTPRoute match: every condition that is set must hold (AND).
 */
export interface RouteMatch {
  /**
   * Unset means prefix `/`.
   */
  'path'?: (_gw_ir_v1_PathMatch | null);
  /**
   * Header names are lower case (HTTP header names are case-insensitive); at most one entry per name.
   */
  'headers'?: (_gw_ir_v1_ValueMatch)[];
  /**
   * Query parameter names are case-sensitive; at most one entry per name.
   */
  'queryParams'?: (_gw_ir_v1_ValueMatch)[];
  /**
   * HTTP method in upper case; empty matches every method.
   */
  'method'?: (string);
}

/**
 * One HTTPRoute match: every condition that is set must hold (AND).
 */
export interface RouteMatch__Output {
  /**
   * Unset means prefix `/`.
   */
  'path': (_gw_ir_v1_PathMatch__Output | null);
  /**
   * Header names are lower case (HTTP header names are case-insensitive); at most one entry per name.
   */
  'headers': (_gw_ir_v1_ValueMatch__Output)[];
  /**
   * Query parameter names are case-sensitive; at most one entry per name.
   */
  'queryParams': (_gw_ir_v1_ValueMatch__Output)[];
  /**
   * HTTP method in upper case; empty matches every method.
   */
  'method': (string);
}
