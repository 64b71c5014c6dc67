// Original file: proto/gw/ir/v1/ir.proto

export const ListenerProtocol = {
  LISTENER_PROTOCOL_UNSPECIFIED: 'LISTENER_PROTOCOL_UNSPECIFIED',
  HTTP: 'HTTP',
  HTTPS: 'HTTPS',
} as const;

export type ListenerProtocol =
  | 'LISTENER_PROTOCOL_UNSPECIFIED'
  | 0
  | 'HTTP'
  | 1
  | 'HTTPS'
  | 2

export type ListenerProtocol__Output = typeof ListenerProtocol[keyof typeof ListenerProtocol]
