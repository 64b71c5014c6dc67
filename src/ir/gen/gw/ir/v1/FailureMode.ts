// Original file: proto/gw/ir/v1/ir.proto

export const FailureMode = {
  /**
   * same as FAIL_CLOSED
   */
  FAILURE_MODE_UNSPECIFIED: 'FAILURE_MODE_UNSPECIFIED',
  FAIL_CLOSED: 'FAIL_CLOSED',
  FAIL_OPEN: 'FAIL_OPEN',
} as const;

export type FailureMode =
  /**
   * same as FAIL_CLOSED
   */
  | 'FAILURE_MODE_UNSPECIFIED'
  | 0
  | 'FAIL_CLOSED'
  | 1
  | 'FAIL_OPEN'
  | 2

export type FailureMode__Output = typeof FailureMode[keyof typeof FailureMode]
