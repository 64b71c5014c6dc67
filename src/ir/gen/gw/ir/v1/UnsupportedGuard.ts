// Original file: proto/gw/ir/v1/ir_translate.proto


export interface UnsupportedGuard {
  /**
   * The step kind, e.g. `openAIModeration` or `webhook`.
   */
  'kind'?: (string);
  /**
   * One sentence on why it cannot run here.
   */
  'reason'?: (string);
}

export interface UnsupportedGuard__Output {
  /**
   * The step kind, e.g. `openAIModeration` or `webhook`.
   */
  'kind': (string);
  /**
   * One sentence on why it cannot run here.
   */
  'reason': (string);
}
