// Original file: proto/gw/ir/v1/ir.proto

export const AuthenticationMode = {
  /**
   * same as STRICT
   */
  AUTHENTICATION_MODE_UNSPECIFIED: 'AUTHENTICATION_MODE_UNSPECIFIED',
  STRICT: 'STRICT',
  OPTIONAL: 'OPTIONAL',
  PERMISSIVE: 'PERMISSIVE',
} as const;

export type AuthenticationMode =
  /**
   * same as STRICT
   */
  | 'AUTHENTICATION_MODE_UNSPECIFIED'
  | 0
  | 'STRICT'
  | 1
  | 'OPTIONAL'
  | 2
  | 'PERMISSIVE'
  | 3

export type AuthenticationMode__Output = typeof AuthenticationMode[keyof typeof AuthenticationMode]
