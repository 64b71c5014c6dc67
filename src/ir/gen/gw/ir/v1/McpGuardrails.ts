// Original file: proto/gw/ir/v1/ir.proto

import type { McpGuardrailProcessor as _gw_ir_v1_McpGuardrailProcessor, McpGuardrailProcessor__Output as _gw_ir_v1_McpGuardrailProcessor__Output } from '../../../gw/ir/v1/McpGuardrailProcessor.js';

/**
 * Remote processors that see MCP traffic of a route → backend edge (`backend.mcp.guardrails`).
 * The wire contract with a processor is in docs/mcp-guardrails.md.
 */
export interface McpGuardrails {
  /**
   * In order; the first rejection stops the chain.
   */
  'processors'?: (_gw_ir_v1_McpGuardrailProcessor)[];
}

/**
 * Remote processors that see MCP traffic of a route → backend edge (`backend.mcp.guardrails`).
 * The wire contract with a processor is in docs/mcp-guardrails.md.
 */
export interface McpGuardrails__Output {
  /**
   * In order; the first rejection stops the chain.
   */
  'processors': (_gw_ir_v1_McpGuardrailProcessor__Output)[];
}
