// Original file: proto/gw/ir/v1/traffic.proto


/**
 * Milliseconds; 0 means no deadline.
 */
export interface TrafficTimeouts {
  /**
   * spec.traffic.timeouts.request
   */
  'requestMs'?: (number);
  /**
   * spec.traffic.timeouts.backendRequest
   */
  'backendRequestMs'?: (number);
}

/**
 * Milliseconds; 0 means no deadline.
 */
export interface TrafficTimeouts__Output {
  /**
   * spec.traffic.timeouts.request
   */
  'requestMs': (number);
  /**
   * spec.traffic.timeouts.backendRequest
   */
  'backendRequestMs': (number);
}
