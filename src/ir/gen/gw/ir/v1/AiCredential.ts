// Original file: proto/gw/ir/v1/ir.proto


export interface AiCredential {
  /**
   * The upstream API key (`backend.auth.key`, or the Secret `backend.auth.secretRef` names). Secret: never log it.
   */
  'key'?: (string);
  /**
   * `backend.auth.passthrough`: the client's own bearer token is sent upstream.
   */
  'passthrough'?: (boolean);
  /**
   * Where it came from, e.g. `GwPolicy ns/name` or `Secret ns/name key k`; diagnostics only.
   */
  'source'?: (string);
  'kind'?: "key"|"passthrough";
}

export interface AiCredential__Output {
  /**
   * The upstream API key (`backend.auth.key`, or the Secret `backend.auth.secretRef` names). Secret: never log it.
   */
  'key'?: (string);
  /**
   * `backend.auth.passthrough`: the client's own bearer token is sent upstream.
   */
  'passthrough'?: (boolean);
  /**
   * Where it came from, e.g. `GwPolicy ns/name` or `Secret ns/name key k`; diagnostics only.
   */
  'source': (string);
  'kind'?: "key"|"passthrough";
}
