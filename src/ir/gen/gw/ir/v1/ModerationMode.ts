// Original file: proto/gw/ir/v1/llm.proto

export const ModerationMode = {
  /**
   * Not moderated.
   */
  MODERATION_OFF: 'MODERATION_OFF',
  /**
   * Scores are returned to the client (header `x-gw-moderation-<phase>`), logged and counted; content passes.
   */
  MODERATION_SCORE: 'MODERATION_SCORE',
  /**
   * Flagged content is refused (403 `content_flagged`); scores are also logged and counted.
   */
  MODERATION_BLOCK: 'MODERATION_BLOCK',
} as const;

export type ModerationMode =
  /**
   * Not moderated.
   */
  | 'MODERATION_OFF'
  | 0
  /**
   * Scores are returned to the client (header `x-gw-moderation-<phase>`), logged and counted; content passes.
   */
  | 'MODERATION_SCORE'
  | 1
  /**
   * Flagged content is refused (403 `content_flagged`); scores are also logged and counted.
   */
  | 'MODERATION_BLOCK'
  | 2

export type ModerationMode__Output = typeof ModerationMode[keyof typeof ModerationMode]
