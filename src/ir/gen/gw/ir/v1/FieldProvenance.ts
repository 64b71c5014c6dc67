// Original file: proto/gw/ir/v1/ir_translate.proto


/**
 * Who set a field and whom it beat. Diagnostics only (`gw explain`); the runtime never reads it.
 */
export interface FieldProvenance {
  /**
   * `GwPolicy ns/name`, `GwBackend ns/name`, `GwBackend ns/name target t`, `GwBackend ns/name provider p`.
   */
  'source'?: (string);
  /**
   * Gateway, Listener, Route, RouteRule, Backend, BackendSection, BackendOwn or Target.
   */
  'level'?: (string);
  /**
   * Objects that set the same field but lost, best first.
   */
  'overridden'?: (string)[];
}

/**
 * Who set a field and whom it beat. Diagnostics only (`gw explain`); the runtime never reads it.
 */
export interface FieldProvenance__Output {
  /**
   * `GwPolicy ns/name`, `GwBackend ns/name`, `GwBackend ns/name target t`, `GwBackend ns/name provider p`.
   */
  'source': (string);
  /**
   * Gateway, Listener, Route, RouteRule, Backend, BackendSection, BackendOwn or Target.
   */
  'level': (string);
  /**
   * Objects that set the same field but lost, best first.
   */
  'overridden': (string)[];
}
