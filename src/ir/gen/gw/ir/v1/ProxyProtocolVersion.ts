// Original file: proto/gw/ir/v1/ir.proto

export const ProxyProtocolVersion = {
  PROXY_PROTOCOL_VERSION_UNSPECIFIED: 'PROXY_PROTOCOL_VERSION_UNSPECIFIED',
  /**
   * The text header `PROXY TCP4 <src> <dst> <sport> <dport>\r\n`.
   */
  PROXY_PROTOCOL_V1: 'PROXY_PROTOCOL_V1',
  /**
   * The binary header (12-byte signature, version 2).
   */
  PROXY_PROTOCOL_V2: 'PROXY_PROTOCOL_V2',
} as const;

export type ProxyProtocolVersion =
  | 'PROXY_PROTOCOL_VERSION_UNSPECIFIED'
  | 0
  /**
   * The text header `PROXY TCP4 <src> <dst> <sport> <dport>\r\n`.
   */
  | 'PROXY_PROTOCOL_V1'
  | 1
  /**
   * The binary header (12-byte signature, version 2).
   */
  | 'PROXY_PROTOCOL_V2'
  | 2

export type ProxyProtocolVersion__Output = typeof ProxyProtocolVersion[keyof typeof ProxyProtocolVersion]
