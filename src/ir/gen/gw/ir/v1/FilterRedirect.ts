// Original file: proto/gw/ir/v1/ir.proto

import type { FilterPathModifier as _gw_ir_v1_FilterPathModifier, FilterPathModifier__Output as _gw_ir_v1_FilterPathModifier__Output } from '../../../gw/ir/v1/FilterPathModifier.js';

export interface FilterRedirect {
  /**
   * `http` or `https`; empty keeps the request's.
   */
  'scheme'?: (string);
  /**
   * Empty keeps the request's Host.
   */
  'hostname'?: (string);
  /**
   * Unset keeps the request path.
   */
  'path'?: (_gw_ir_v1_FilterPathModifier | null);
  /**
   * 0: the scheme's well-known port when `scheme` is set, else the request's port.
   */
  'port'?: (number);
  /**
   * 301, 302, 303, 307 or 308; 0 means 302.
   */
  'statusCode'?: (number);
}

export interface FilterRedirect__Output {
  /**
   * `http` or `https`; empty keeps the request's.
   */
  'scheme': (string);
  /**
   * Empty keeps the request's Host.
   */
  'hostname': (string);
  /**
   * Unset keeps the request path.
   */
  'path': (_gw_ir_v1_FilterPathModifier__Output | null);
  /**
   * 0: the scheme's well-known port when `scheme` is set, else the request's port.
   */
  'port': (number);
  /**
   * 301, 302, 303, 307 or 308; 0 means 302.
   */
  'statusCode': (number);
}
