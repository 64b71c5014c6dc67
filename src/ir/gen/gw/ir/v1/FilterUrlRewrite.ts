// Original file: proto/gw/ir/v1/ir.proto

import type { FilterPathModifier as _gw_ir_v1_FilterPathModifier, FilterPathModifier__Output as _gw_ir_v1_FilterPathModifier__Output } from '../../../gw/ir/v1/FilterPathModifier.js';

export interface FilterUrlRewrite {
  /**
   * Replaces the Host header sent upstream; empty keeps it.
   */
  'hostname'?: (string);
  /**
   * Unset keeps the request path.
   */
  'path'?: (_gw_ir_v1_FilterPathModifier | null);
}

export interface FilterUrlRewrite__Output {
  /**
   * Replaces the Host header sent upstream; empty keeps it.
   */
  'hostname': (string);
  /**
   * Unset keeps the request path.
   */
  'path': (_gw_ir_v1_FilterPathModifier__Output | null);
}
