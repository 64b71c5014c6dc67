// Original file: proto/gw/ir/v1/traffic.proto

import type { TransformationHeader as _gw_ir_v1_TransformationHeader, TransformationHeader__Output as _gw_ir_v1_TransformationHeader__Output } from '../../../gw/ir/v1/TransformationHeader.js';

/**
 * Applied in the order remove, set, add, body; header names are lower case.
 */
export interface TransformationStep {
  /**
   * Header name → CEL expression yielding its one value (replaces every value); `:path`, `:method`,
   * `:authority` are the request's path, method and host.
   */
  'set'?: (_gw_ir_v1_TransformationHeader)[];
  /**
   * Header name → CEL expression yielding a value appended to those already there.
   */
  'add'?: (_gw_ir_v1_TransformationHeader)[];
  'remove'?: (string)[];
  /**
   * CEL expression yielding the new body: a string or bytes as is, any other value as JSON.
   */
  'body'?: (string);
  '_body'?: "body";
}

/**
 * Applied in the order remove, set, add, body; header names are lower case.
 */
export interface TransformationStep__Output {
  /**
   * Header name → CEL expression yielding its one value (replaces every value); `:path`, `:method`,
   * `:authority` are the request's path, method and host.
   */
  'set': (_gw_ir_v1_TransformationHeader__Output)[];
  /**
   * Header name → CEL expression yielding a value appended to those already there.
   */
  'add': (_gw_ir_v1_TransformationHeader__Output)[];
  'remove': (string)[];
  /**
   * CEL expression yielding the new body: a string or bytes as is, any other value as JSON.
   */
  'body'?: (string);
  '_body'?: "body";
}
