// Original file: proto/gw/ir/v1/ir.proto

export const ProxyProtocolMode = {
  PROXY_PROTOCOL_MODE_UNSPECIFIED: 'PROXY_PROTOCOL_MODE_UNSPECIFIED',
  /**
   * A connection without a valid header of the configured version is closed.
   */
  PROXY_PROTOCOL_STRICT: 'PROXY_PROTOCOL_STRICT',
  /**
   * A connection that does not start with a PROXY header is served as it is (its own peer address).
   */
  PROXY_PROTOCOL_OPTIONAL: 'PROXY_PROTOCOL_OPTIONAL',
} as const;

export type ProxyProtocolMode =
  | 'PROXY_PROTOCOL_MODE_UNSPECIFIED'
  | 0
  /**
   * A connection without a valid header of the configured version is closed.
   */
  | 'PROXY_PROTOCOL_STRICT'
  | 1
  /**
   * A connection that does not start with a PROXY header is served as it is (its own peer address).
   */
  | 'PROXY_PROTOCOL_OPTIONAL'
  | 2

export type ProxyProtocolMode__Output = typeof ProxyProtocolMode[keyof typeof ProxyProtocolMode]
