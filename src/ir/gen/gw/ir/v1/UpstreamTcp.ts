// Original file: proto/gw/ir/v1/ir.proto


/**
 * Upstream dialer settings of an edge (GwPolicy `backend.tcp`); 0 keeps the proxy's default.
 */
export interface UpstreamTcp {
  /**
   * `connectTimeout` in ms: the TCP connect (and TLS handshake, and tunnel set-up) must finish in it.
   */
  'connectTimeoutMs'?: (number);
  /**
   * `keepalive.time` in ms: idle time before the first TCP keepalive probe.
   */
  'keepaliveTimeMs'?: (number);
}

/**
 * Upstream dialer settings of an edge (GwPolicy `backend.tcp`); 0 keeps the proxy's default.
 */
export interface UpstreamTcp__Output {
  /**
   * `connectTimeout` in ms: the TCP connect (and TLS handshake, and tunnel set-up) must finish in it.
   */
  'connectTimeoutMs': (number);
  /**
   * `keepalive.time` in ms: idle time before the first TCP keepalive probe.
   */
  'keepaliveTimeMs': (number);
}
