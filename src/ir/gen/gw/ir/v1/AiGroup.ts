// Original file: proto/gw/ir/v1/ir_translate.proto

import type { AiProvider as _gw_ir_v1_AiProvider, AiProvider__Output as _gw_ir_v1_AiProvider__Output } from '../../../gw/ir/v1/AiProvider.js';

/**
 * AI backend: priority groups in order; one group with one provider for `spec.ai.provider`.
 */
export interface AiGroup {
  'providers'?: (_gw_ir_v1_AiProvider)[];
}

/**
 * AI backend: priority groups in order; one group with one provider for `spec.ai.provider`.
 */
export interface AiGroup__Output {
  'providers': (_gw_ir_v1_AiProvider__Output)[];
}
