// Original file: proto/gw/ir/v1/ir_translate.proto

export const ModelRoutingKind = {
  MODEL_ROUTING_KIND_UNSPECIFIED: 'MODEL_ROUTING_KIND_UNSPECIFIED',
  FAILOVER: 'FAILOVER',
  CONDITIONAL: 'CONDITIONAL',
  WEIGHTED: 'WEIGHTED',
} as const;

export type ModelRoutingKind =
  | 'MODEL_ROUTING_KIND_UNSPECIFIED'
  | 0
  | 'FAILOVER'
  | 1
  | 'CONDITIONAL'
  | 2
  | 'WEIGHTED'
  | 3

export type ModelRoutingKind__Output = typeof ModelRoutingKind[keyof typeof ModelRoutingKind]
