// Original file: proto/gw/ir/v1/ir.proto


/**
 * Each request goes to the host its Host header names (docs/proxy.md "Dynamic forward proxy").
 */
export interface DynamicForwardProxyBackend {
  /**
   * CIDR ranges that may be reached although they are loopback, link-local, private, unspecified or
   * this machine's own addresses, which are refused (403) otherwise.
   */
  'allowedDestinations'?: (string)[];
}

/**
 * Each request goes to the host its Host header names (docs/proxy.md "Dynamic forward proxy").
 */
export interface DynamicForwardProxyBackend__Output {
  /**
   * CIDR ranges that may be reached although they are loopback, link-local, private, unspecified or
   * this machine's own addresses, which are refused (403) otherwise.
   */
  'allowedDestinations': (string)[];
}
