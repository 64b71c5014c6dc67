// Original file: proto/gw/ir/v1/ir.proto


/**
 * GwPolicy `frontend.tracing`.
 */
export interface Tracing {
  /**
   * The OTLP/HTTP traces URL (ending /v1/traces) spans are exported to.
   */
  'otlpTracesUrl'?: (string);
}

/**
 * GwPolicy `frontend.tracing`.
 */
export interface Tracing__Output {
  /**
   * The OTLP/HTTP traces URL (ending /v1/traces) spans are exported to.
   */
  'otlpTracesUrl': (string);
}
