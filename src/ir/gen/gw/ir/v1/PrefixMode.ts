// Original file: proto/gw/ir/v1/ir.proto

export const PrefixMode = {
  /**
   * same as CONDITIONAL
   */
  PREFIX_MODE_UNSPECIFIED: 'PREFIX_MODE_UNSPECIFIED',
  CONDITIONAL: 'CONDITIONAL',
  ALWAYS: 'ALWAYS',
  NEVER: 'NEVER',
} as const;

export type PrefixMode =
  /**
   * same as CONDITIONAL
   */
  | 'PREFIX_MODE_UNSPECIFIED'
  | 0
  | 'CONDITIONAL'
  | 1
  | 'ALWAYS'
  | 2
  | 'NEVER'
  | 3

export type PrefixMode__Output = typeof PrefixMode[keyof typeof PrefixMode]
