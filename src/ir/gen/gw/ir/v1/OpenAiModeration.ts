// Original file: proto/gw/ir/v1/llm.proto

import type { ModerationMode as _gw_ir_v1_ModerationMode, ModerationMode__Output as _gw_ir_v1_ModerationMode__Output } from '../../../gw/ir/v1/ModerationMode.js';

export interface OpenAiModeration {
  /**
   * The moderation model; the translator fills the API default `omni-moderation-latest`.
   */
  'model'?: (string);
  'input'?: (_gw_ir_v1_ModerationMode);
  'output'?: (_gw_ir_v1_ModerationMode);
}

export interface OpenAiModeration__Output {
  /**
   * The moderation model; the translator fills the API default `omni-moderation-latest`.
   */
  'model': (string);
  'input': (_gw_ir_v1_ModerationMode__Output);
  'output': (_gw_ir_v1_ModerationMode__Output);
}
