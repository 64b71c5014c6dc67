// Original file: proto/gw/ir/v1/ir_translate.proto


/**
 * An upstream LLM credential: of an AI backend edge (ir.proto AiProviderEdge) or of a GwModel provider.
 * Defined here, not in ir.proto, because ir.proto imports this file and imports cannot go both ways.
 */
export interface AiCredential {
  /**
   * The upstream API key (`auth.key`, or the Secret `auth.secretRef` names). Secret: never log it.
   */
  'key'?: (string);
  /**
   * `auth.passthrough`: the client's own bearer token is sent upstream.
   */
  'passthrough'?: (boolean);
  /**
   * Where it came from, e.g. `GwPolicy ns/name`, `GwModel ns/name` or `Secret ns/name key k`; diagnostics only.
   */
  'source'?: (string);
  'kind'?: "key"|"passthrough";
}

/**
 * An upstream LLM credential: of an AI backend edge (ir.proto AiProviderEdge) or of a GwModel provider.
 * Defined here, not in ir.proto, because ir.proto imports this file and imports cannot go both ways.
 */
export interface AiCredential__Output {
  /**
   * The upstream API key (`auth.key`, or the Secret `auth.secretRef` names). Secret: never log it.
   */
  'key'?: (string);
  /**
   * `auth.passthrough`: the client's own bearer token is sent upstream.
   */
  'passthrough'?: (boolean);
  /**
   * Where it came from, e.g. `GwPolicy ns/name`, `GwModel ns/name` or `Secret ns/name key k`; diagnostics only.
   */
  'source': (string);
  'kind'?: "key"|"passthrough";
}
