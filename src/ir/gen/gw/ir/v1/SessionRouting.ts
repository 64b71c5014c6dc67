// Original file: proto/gw/ir/v1/ir.proto

export const SessionRouting = {
  /**
   * same as STATEFUL
   */
  SESSION_ROUTING_UNSPECIFIED: 'SESSION_ROUTING_UNSPECIFIED',
  STATEFUL: 'STATEFUL',
  STATELESS: 'STATELESS',
} as const;

export type SessionRouting =
  /**
   * same as STATEFUL
   */
  | 'SESSION_ROUTING_UNSPECIFIED'
  | 0
  | 'STATEFUL'
  | 1
  | 'STATELESS'
  | 2

export type SessionRouting__Output = typeof SessionRouting[keyof typeof SessionRouting]
