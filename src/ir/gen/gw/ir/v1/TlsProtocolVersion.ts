// Original file: proto/gw/ir/v1/ir.proto

export const TlsProtocolVersion = {
  TLS_PROTOCOL_VERSION_UNSPECIFIED: 'TLS_PROTOCOL_VERSION_UNSPECIFIED',
  TLS_PROTOCOL_VERSION_1_2: 'TLS_PROTOCOL_VERSION_1_2',
  TLS_PROTOCOL_VERSION_1_3: 'TLS_PROTOCOL_VERSION_1_3',
} as const;

export type TlsProtocolVersion =
  | 'TLS_PROTOCOL_VERSION_UNSPECIFIED'
  | 0
  | 'TLS_PROTOCOL_VERSION_1_2'
  | 1
  | 'TLS_PROTOCOL_VERSION_1_3'
  | 2

export type TlsProtocolVersion__Output = typeof TlsProtocolVersion[keyof typeof TlsProtocolVersion]
