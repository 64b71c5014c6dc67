// Original file: proto/gw/ir/v1/ir_translate.proto

export const RegexGuardAction = {
  /**
   * Same as REJECT (the API default).
   */
  REGEX_GUARD_ACTION_UNSPECIFIED: 'REGEX_GUARD_ACTION_UNSPECIFIED',
  REGEX_REJECT: 'REGEX_REJECT',
  REGEX_MASK: 'REGEX_MASK',
  REGEX_AUDIT: 'REGEX_AUDIT',
} as const;

export type RegexGuardAction =
  /**
   * Same as REJECT (the API default).
   */
  | 'REGEX_GUARD_ACTION_UNSPECIFIED'
  | 0
  | 'REGEX_REJECT'
  | 1
  | 'REGEX_MASK'
  | 2
  | 'REGEX_AUDIT'
  | 3

export type RegexGuardAction__Output = typeof RegexGuardAction[keyof typeof RegexGuardAction]
