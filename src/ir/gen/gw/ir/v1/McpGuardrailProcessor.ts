// Original file: proto/gw/ir/v1/ir.proto

import type { McpGuardrailPhase as _gw_ir_v1_McpGuardrailPhase, McpGuardrailPhase__Output as _gw_ir_v1_McpGuardrailPhase__Output } from '../../../gw/ir/v1/McpGuardrailPhase.js';
import type { FailureMode as _gw_ir_v1_FailureMode, FailureMode__Output as _gw_ir_v1_FailureMode__Output } from '../../../gw/ir/v1/FailureMode.js';

export interface McpGuardrailProcessor {
  /**
   * JSON-RPC method pattern (exact, `prefix*`, `*suffix` or `*`) → phase; the most specific pattern wins
   * and methods no pattern matches bypass the processor.
   */
  'methods'?: ({[key: string]: _gw_ir_v1_McpGuardrailPhase});
  /**
   * Where the proxy POSTs: the `url` as written, or `http://<service host>:<port>/` of a `backendRef`.
   */
  'url'?: (string);
  'failureMode'?: (_gw_ir_v1_FailureMode);
  /**
   * Metadata name → CEL expression over `request`, `jwt` and `mcp`, evaluated per call.
   */
  'metadata'?: ({[key: string]: string});
  /**
   * Lower-case header names (pseudo-headers with their colon); empty forwards every header.
   */
  'allowedRequestHeaders'?: (string)[];
  /**
   * Lower-case header names never forwarded; they win over the allowed list.
   */
  'disallowedRequestHeaders'?: (string)[];
  /**
   * Set when the processor could not be resolved (missing Service, bad pattern): every method it matches
   * is rejected, whatever `failure_mode` says, so a broken reference never leaves traffic unguarded.
   */
  'problem'?: (string);
  /**
   * Where it was configured, e.g. `GwPolicy ns/name backend.mcp.guardrails.processors[0]`; diagnostics only.
   */
  'source'?: (string);
}

export interface McpGuardrailProcessor__Output {
  /**
   * JSON-RPC method pattern (exact, `prefix*`, `*suffix` or `*`) → phase; the most specific pattern wins
   * and methods no pattern matches bypass the processor.
   */
  'methods': ({[key: string]: _gw_ir_v1_McpGuardrailPhase__Output});
  /**
   * Where the proxy POSTs: the `url` as written, or `http://<service host>:<port>/` of a `backendRef`.
   */
  'url': (string);
  'failureMode': (_gw_ir_v1_FailureMode__Output);
  /**
   * Metadata name → CEL expression over `request`, `jwt` and `mcp`, evaluated per call.
   */
  'metadata': ({[key: string]: string});
  /**
   * Lower-case header names (pseudo-headers with their colon); empty forwards every header.
   */
  'allowedRequestHeaders': (string)[];
  /**
   * Lower-case header names never forwarded; they win over the allowed list.
   */
  'disallowedRequestHeaders': (string)[];
  /**
   * Set when the processor could not be resolved (missing Service, bad pattern): every method it matches
   * is rejected, whatever `failure_mode` says, so a broken reference never leaves traffic unguarded.
   */
  'problem': (string);
  /**
   * Where it was configured, e.g. `GwPolicy ns/name backend.mcp.guardrails.processors[0]`; diagnostics only.
   */
  'source': (string);
}
