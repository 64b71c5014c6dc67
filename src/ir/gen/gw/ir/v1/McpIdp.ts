// Original file: proto/gw/ir/v1/ir.proto

/**
 * Identity-provider kinds, in the order of the specification. Unset means no provider-specific behaviour.
 */
export const McpIdp = {
  MCP_IDP_UNSPECIFIED: 'MCP_IDP_UNSPECIFIED',
  IDPA: 'IDPA',
  IDPB: 'IDPB',
  IDPC: 'IDPC',
  IDPD: 'IDPD',
  IDPE: 'IDPE',
  IDPF: 'IDPF',
} as const;

/**
 * Identity-provider kinds, in the order of the specification. Unset means no provider-specific behaviour.
 */
export type McpIdp =
  | 'MCP_IDP_UNSPECIFIED'
  | 0
  | 'IDPA'
  | 1
  | 'IDPB'
  | 2
  | 'IDPC'
  | 3
  | 'IDPD'
  | 4
  | 'IDPE'
  | 5
  | 'IDPF'
  | 6

/**
 * Identity-provider kinds, in the order of the specification. Unset means no provider-specific behaviour.
 */
export type McpIdp__Output = typeof McpIdp[keyof typeof McpIdp]
