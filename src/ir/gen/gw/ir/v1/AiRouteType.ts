// Original file: proto/gw/ir/v1/ir.proto

/**
 * GwBackend `backend.ai.routes` values. Values carry a prefix because proto3 enum values share the package scope.
 */
export const AiRouteType = {
  AI_ROUTE_COMPLETIONS: 'AI_ROUTE_COMPLETIONS',
  AI_ROUTE_MESSAGES: 'AI_ROUTE_MESSAGES',
  AI_ROUTE_RESPONSES: 'AI_ROUTE_RESPONSES',
  AI_ROUTE_EMBEDDINGS: 'AI_ROUTE_EMBEDDINGS',
  AI_ROUTE_MODELS: 'AI_ROUTE_MODELS',
  AI_ROUTE_REALTIME: 'AI_ROUTE_REALTIME',
  AI_ROUTE_PASSTHROUGH: 'AI_ROUTE_PASSTHROUGH',
} as const;

/**
 * GwBackend `backend.ai.routes` values. Values carry a prefix because proto3 enum values share the package scope.
 */
export type AiRouteType =
  | 'AI_ROUTE_COMPLETIONS'
  | 0
  | 'AI_ROUTE_MESSAGES'
  | 1
  | 'AI_ROUTE_RESPONSES'
  | 2
  | 'AI_ROUTE_EMBEDDINGS'
  | 3
  | 'AI_ROUTE_MODELS'
  | 4
  | 'AI_ROUTE_REALTIME'
  | 5
  | 'AI_ROUTE_PASSTHROUGH'
  | 6

/**
 * GwBackend `backend.ai.routes` values. Values carry a prefix because proto3 enum values share the package scope.
 */
export type AiRouteType__Output = typeof AiRouteType[keyof typeof AiRouteType]
