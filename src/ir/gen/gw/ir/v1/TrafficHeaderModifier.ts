// Original file: proto/gw/ir/v1/traffic.proto

import type { TrafficHeader as _gw_ir_v1_TrafficHeader, TrafficHeader__Output as _gw_ir_v1_TrafficHeader__Output } from '../../../gw/ir/v1/TrafficHeader.js';

/**
 * Applied in the order remove, set, add (same shape as FilterHeaderModifier).
 */
export interface TrafficHeaderModifier {
  /**
   * spec.traffic.headerModifiers.{request,response}.set
   */
  'set'?: (_gw_ir_v1_TrafficHeader)[];
  /**
   * spec.traffic.headerModifiers.{request,response}.add
   */
  'add'?: (_gw_ir_v1_TrafficHeader)[];
  /**
   * spec.traffic.headerModifiers.{request,response}.remove
   */
  'remove'?: (string)[];
}

/**
 * Applied in the order remove, set, add (same shape as FilterHeaderModifier).
 */
export interface TrafficHeaderModifier__Output {
  /**
   * spec.traffic.headerModifiers.{request,response}.set
   */
  'set': (_gw_ir_v1_TrafficHeader__Output)[];
  /**
   * spec.traffic.headerModifiers.{request,response}.add
   */
  'add': (_gw_ir_v1_TrafficHeader__Output)[];
  /**
   * spec.traffic.headerModifiers.{request,response}.remove
   */
  'remove': (string)[];
}
