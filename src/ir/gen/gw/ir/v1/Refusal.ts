// Original file: proto/gw/ir/v1/refusal.proto


export interface Refusal {
  /**
   * The field path as the user wrote it, from the object's root, e.g. `spec.traffic.csrf` or
   * `spec.frontend.tls.cipherSuites` (standalone: `mcp.policies.x`).
   */
  'field'?: (string);
  /**
   * The object that set it, e.g. `GwPolicy default/p1`, `GwBackend default/b`, `file config.yaml`.
   */
  'source'?: (string);
  /**
   * One sentence users read, e.g. `CSRF protection is not enforced by this release`.
   */
  'reason'?: (string);
  /**
   * The field concerns security (authentication, authorization, TLS, CSRF, network authorization,
   * guardrails, moderation): the routes it reaches refuse every request with 503 rather than run without it.
   */
  'security'?: (boolean);
}

export interface Refusal__Output {
  /**
   * The field path as the user wrote it, from the object's root, e.g. `spec.traffic.csrf` or
   * `spec.frontend.tls.cipherSuites` (standalone: `mcp.policies.x`).
   */
  'field': (string);
  /**
   * The object that set it, e.g. `GwPolicy default/p1`, `GwBackend default/b`, `file config.yaml`.
   */
  'source': (string);
  /**
   * One sentence users read, e.g. `CSRF protection is not enforced by this release`.
   */
  'reason': (string);
  /**
   * The field concerns security (authentication, authorization, TLS, CSRF, network authorization,
   * guardrails, moderation): the routes it reaches refuse every request with 503 rather than run without it.
   */
  'security': (boolean);
}
