// Original file: proto/gw/ir/v1/ir_translate.proto

export const PromptGuardStreaming = {
  /**
   * Same as DISABLED: response guards do not see streamed responses.
   */
  PROMPT_GUARD_STREAMING_UNSPECIFIED: 'PROMPT_GUARD_STREAMING_UNSPECIFIED',
  PROMPT_GUARD_STREAMING_DISABLED: 'PROMPT_GUARD_STREAMING_DISABLED',
  /**
   * Streamed responses must be guarded too; a proxy that cannot must refuse streamed requests.
   */
  PROMPT_GUARD_STREAMING_BUFFERED: 'PROMPT_GUARD_STREAMING_BUFFERED',
} as const;

export type PromptGuardStreaming =
  /**
   * Same as DISABLED: response guards do not see streamed responses.
   */
  | 'PROMPT_GUARD_STREAMING_UNSPECIFIED'
  | 0
  | 'PROMPT_GUARD_STREAMING_DISABLED'
  | 1
  /**
   * Streamed responses must be guarded too; a proxy that cannot must refuse streamed requests.
   */
  | 'PROMPT_GUARD_STREAMING_BUFFERED'
  | 2

export type PromptGuardStreaming__Output = typeof PromptGuardStreaming[keyof typeof PromptGuardStreaming]
