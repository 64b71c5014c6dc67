// Original file: proto/gw/ir/v1/ir.proto

export const RemoteProtocol = {
  /**
   * same as STREAMABLE_HTTP
   */
  REMOTE_PROTOCOL_UNSPECIFIED: 'REMOTE_PROTOCOL_UNSPECIFIED',
  STREAMABLE_HTTP: 'STREAMABLE_HTTP',
  SSE: 'SSE',
} as const;

export type RemoteProtocol =
  /**
   * same as STREAMABLE_HTTP
   */
  | 'REMOTE_PROTOCOL_UNSPECIFIED'
  | 0
  | 'STREAMABLE_HTTP'
  | 1
  | 'SSE'
  | 2

export type RemoteProtocol__Output = typeof RemoteProtocol[keyof typeof RemoteProtocol]
