// Original file: proto/gw/ir/v1/ir.proto


/**
 * GwPolicy `frontend` caps of one listener. Connections are per port: listeners sharing a port share the
 * smallest cap any of them sets.
 */
export interface ListenerLimits {
  /**
   * spec.frontend.http.maxConcurrentRequests: requests in flight on this listener; excess requests get 503.
   */
  'maxConcurrentRequests'?: (number);
  /**
   * spec.frontend.tcp.maxConnections: open connections on this listener's port; excess ones are closed.
   */
  'maxConnections'?: (number);
  '_maxConcurrentRequests'?: "maxConcurrentRequests";
  '_maxConnections'?: "maxConnections";
}

/**
 * GwPolicy `frontend` caps of one listener. Connections are per port: listeners sharing a port share the
 * smallest cap any of them sets.
 */
export interface ListenerLimits__Output {
  /**
   * spec.frontend.http.maxConcurrentRequests: requests in flight on this listener; excess requests get 503.
   */
  'maxConcurrentRequests'?: (number);
  /**
   * spec.frontend.tcp.maxConnections: open connections on this listener's port; excess ones are closed.
   */
  'maxConnections'?: (number);
  '_maxConcurrentRequests'?: "maxConcurrentRequests";
  '_maxConnections'?: "maxConnections";
}
