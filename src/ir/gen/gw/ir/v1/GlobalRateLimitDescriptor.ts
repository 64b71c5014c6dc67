// Original file: proto/gw/ir/v1/ir.proto

import type { GlobalRateLimitEntry as _gw_ir_v1_GlobalRateLimitEntry, GlobalRateLimitEntry__Output as _gw_ir_v1_GlobalRateLimitEntry__Output } from '../../../gw/ir/v1/GlobalRateLimitEntry.js';

export interface GlobalRateLimitDescriptor {
  'entries'?: (_gw_ir_v1_GlobalRateLimitEntry)[];
  /**
   * unit: Tokens: checked (hits_addend 0) before the request, charged with the LLM answer's tokens after it.
   */
  'tokens'?: (boolean);
}

export interface GlobalRateLimitDescriptor__Output {
  'entries': (_gw_ir_v1_GlobalRateLimitEntry__Output)[];
  /**
   * unit: Tokens: checked (hits_addend 0) before the request, charged with the LLM answer's tokens after it.
   */
  'tokens': (boolean);
}
