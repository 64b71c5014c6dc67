// Original file: proto/gw/ir/v1/authorization.proto

export const AuthorizationAction = {
  /**
   * same as ALLOW
   */
  AUTHORIZATION_ACTION_UNSPECIFIED: 'AUTHORIZATION_ACTION_UNSPECIFIED',
  ALLOW: 'ALLOW',
  DENY: 'DENY',
  REQUIRE: 'REQUIRE',
} as const;

export type AuthorizationAction =
  /**
   * same as ALLOW
   */
  | 'AUTHORIZATION_ACTION_UNSPECIFIED'
  | 0
  | 'ALLOW'
  | 1
  | 'DENY'
  | 2
  | 'REQUIRE'
  | 3

export type AuthorizationAction__Output = typeof AuthorizationAction[keyof typeof AuthorizationAction]
