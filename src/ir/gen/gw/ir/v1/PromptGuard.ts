// Original file: proto/gw/ir/v1/ir_translate.proto

import type { PromptGuardStep as _gw_ir_v1_PromptGuardStep, PromptGuardStep__Output as _gw_ir_v1_PromptGuardStep__Output } from '../../../gw/ir/v1/PromptGuardStep.js';
import type { PromptGuardStreaming as _gw_ir_v1_PromptGuardStreaming, PromptGuardStreaming__Output as _gw_ir_v1_PromptGuardStreaming__Output } from '../../../gw/ir/v1/PromptGuardStreaming.js';

/**
 * Prompt guards of one route → backend edge (`backend.ai.promptGuard`, seed 001 AIPromptGuard and
 * seed 000 guardrail webhook), resolved so the proxy needs nothing else. Steps run in order. Set whenever
 * the effective policy sets promptGuard (unresolvable steps become `unsupported`): the proxy reads no
 * backend.ai JSON (issue 14).
 */
export interface PromptGuard {
  'request'?: (_gw_ir_v1_PromptGuardStep)[];
  'response'?: (_gw_ir_v1_PromptGuardStep)[];
  'streaming'?: (_gw_ir_v1_PromptGuardStreaming);
  /**
   * Edge-level reasons the proxy must refuse this edge (fail closed), e.g. per-provider guards that
   * differ from the edge's; empty when every step can run.
   */
  'unenforceable'?: (string)[];
}

/**
 * Prompt guards of one route → backend edge (`backend.ai.promptGuard`, seed 001 AIPromptGuard and
 * seed 000 guardrail webhook), resolved so the proxy needs nothing else. Steps run in order. Set whenever
 * the effective policy sets promptGuard (unresolvable steps become `unsupported`): the proxy reads no
 * backend.ai JSON (issue 14).
 */
export interface PromptGuard__Output {
  'request': (_gw_ir_v1_PromptGuardStep__Output)[];
  'response': (_gw_ir_v1_PromptGuardStep__Output)[];
  'streaming': (_gw_ir_v1_PromptGuardStreaming__Output);
  /**
   * Edge-level reasons the proxy must refuse this edge (fail closed), e.g. per-provider guards that
   * differ from the edge's; empty when every step can run.
   */
  'unenforceable': (string)[];
}
