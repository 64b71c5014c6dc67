// Original file: proto/gw/ir/v1/ir.proto

/**
 * How much of a body an external processor gets (GwPolicy processingOptions BodySendMode).
 */
export const ExtProcBodyMode = {
  EXT_PROC_BODY_NONE: 'EXT_PROC_BODY_NONE',
  EXT_PROC_BODY_BUFFERED: 'EXT_PROC_BODY_BUFFERED',
  EXT_PROC_BODY_BUFFERED_PARTIAL: 'EXT_PROC_BODY_BUFFERED_PARTIAL',
  EXT_PROC_BODY_FULL_DUPLEX_STREAMED: 'EXT_PROC_BODY_FULL_DUPLEX_STREAMED',
} as const;

/**
 * How much of a body an external processor gets (GwPolicy processingOptions BodySendMode).
 */
export type ExtProcBodyMode =
  | 'EXT_PROC_BODY_NONE'
  | 0
  | 'EXT_PROC_BODY_BUFFERED'
  | 1
  | 'EXT_PROC_BODY_BUFFERED_PARTIAL'
  | 2
  | 'EXT_PROC_BODY_FULL_DUPLEX_STREAMED'
  | 3

/**
 * How much of a body an external processor gets (GwPolicy processingOptions BodySendMode).
 */
export type ExtProcBodyMode__Output = typeof ExtProcBodyMode[keyof typeof ExtProcBodyMode]
