// MCP guardrails: remote processors on a route's MCP traffic (backend.mcp.guardrails). See docs/mcp-guardrails.md.
export { compileGuardrails, type ChainOptions, type GuardrailCall, type McpGuardrailChain } from './chain.js';
export {
  GuardrailRejected,
  GuardrailUnavailable,
  contractVersion,
  type ProcessorRequest,
  type Verdict,
} from './contract.js';
