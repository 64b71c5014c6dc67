// Original file: proto/gw/ir/v1/ir.proto


/**
 * Gateway API HTTPRoute rule timeouts in milliseconds; 0 means no deadline (also what `0s` asks for).
 */
export interface RouteTimeouts {
  /**
   * Client request start → response fully sent (`timeouts.request`).
   */
  'requestMs'?: (number);
  /**
   * One request to a backend: start → response fully received (`timeouts.backendRequest`).
   */
  'backendRequestMs'?: (number);
}

/**
 * Gateway API HTTPRoute rule timeouts in milliseconds; 0 means no deadline (also what `0s` asks for).
 */
export interface RouteTimeouts__Output {
  /**
   * Client request start → response fully sent (`timeouts.request`).
   */
  'requestMs': (number);
  /**
   * One request to a backend: start → response fully received (`timeouts.backendRequest`).
   */
  'backendRequestMs': (number);
}
