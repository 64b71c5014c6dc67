// Original file: proto/gw/ir/v1/ir.proto

import type { Resource as _gw_ir_v1_Resource, Resource__Output as _gw_ir_v1_Resource__Output } from '../../../gw/ir/v1/Resource.js';

/**
 * A complete, self-consistent configuration. The xDS stream ships the same `Resource`s one by one.
 */
export interface Snapshot {
  /**
   * Opaque version of this snapshot (e.g. a content hash); equal versions mean equal content.
   */
  'version'?: (string);
  'resources'?: (_gw_ir_v1_Resource)[];
}

/**
 * A complete, self-consistent configuration. The xDS stream ships the same `Resource`s one by one.
 */
export interface Snapshot__Output {
  /**
   * Opaque version of this snapshot (e.g. a content hash); equal versions mean equal content.
   */
  'version': (string);
  'resources': (_gw_ir_v1_Resource__Output)[];
}
