// Original file: proto/gw/ir/v1/ir.proto

import type { FilterHeader as _gw_ir_v1_FilterHeader, FilterHeader__Output as _gw_ir_v1_FilterHeader__Output } from '../../../gw/ir/v1/FilterHeader.js';

/**
 * Applied in the order remove, set, add; header names are lower case.
 */
export interface FilterHeaderModifier {
  'set'?: (_gw_ir_v1_FilterHeader)[];
  'add'?: (_gw_ir_v1_FilterHeader)[];
  'remove'?: (string)[];
}

/**
 * Applied in the order remove, set, add; header names are lower case.
 */
export interface FilterHeaderModifier__Output {
  'set': (_gw_ir_v1_FilterHeader__Output)[];
  'add': (_gw_ir_v1_FilterHeader__Output)[];
  'remove': (string)[];
}
