// Original file: proto/gw/ir/v1/headers.proto

import type { Header as _gw_ir_v1_Header, Header__Output as _gw_ir_v1_Header__Output } from '../../../gw/ir/v1/Header.js';

/**
 * Applied in the order remove, set, add; header names are lower case.
 */
export interface HeaderModifier {
  /**
   * Replaces every value of the header.
   */
  'set'?: (_gw_ir_v1_Header)[];
  /**
   * Appends a value, keeping those already there.
   */
  'add'?: (_gw_ir_v1_Header)[];
  'remove'?: (string)[];
}

/**
 * Applied in the order remove, set, add; header names are lower case.
 */
export interface HeaderModifier__Output {
  /**
   * Replaces every value of the header.
   */
  'set': (_gw_ir_v1_Header__Output)[];
  /**
   * Appends a value, keeping those already there.
   */
  'add': (_gw_ir_v1_Header__Output)[];
  'remove': (string)[];
}
