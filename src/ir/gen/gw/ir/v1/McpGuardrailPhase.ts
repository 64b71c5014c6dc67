// Original file: proto/gw/ir/v1/ir.proto

/**
 * When a processor sees a JSON-RPC method. Values carry a prefix because enum values share the package scope.
 */
export const McpGuardrailPhase = {
  GUARDRAIL_OFF: 'GUARDRAIL_OFF',
  GUARDRAIL_REQUEST: 'GUARDRAIL_REQUEST',
  GUARDRAIL_RESPONSE: 'GUARDRAIL_RESPONSE',
  GUARDRAIL_FULL: 'GUARDRAIL_FULL',
} as const;

/**
 * When a processor sees a JSON-RPC method. Values carry a prefix because enum values share the package scope.
 */
export type McpGuardrailPhase =
  | 'GUARDRAIL_OFF'
  | 0
  | 'GUARDRAIL_REQUEST'
  | 1
  | 'GUARDRAIL_RESPONSE'
  | 2
  | 'GUARDRAIL_FULL'
  | 3

/**
 * When a processor sees a JSON-RPC method. Values carry a prefix because enum values share the package scope.
 */
export type McpGuardrailPhase__Output = typeof McpGuardrailPhase[keyof typeof McpGuardrailPhase]
