// Original file: proto/gw/ir/v1/upstream.proto


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
  /**
   * `keepalive.interval` in ms: time between unanswered probes (Node 24's setKeepAlive; 0: the platform's).
   */
  'keepaliveIntervalMs'?: (number);
  /**
   * `keepalive.retries`: unanswered probes before the connection is dropped (0: the platform's).
   */
  'keepaliveProbes'?: (number);
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
  /**
   * `keepalive.interval` in ms: time between unanswered probes (Node 24's setKeepAlive; 0: the platform's).
   */
  'keepaliveIntervalMs': (number);
  /**
   * `keepalive.retries`: unanswered probes before the connection is dropped (0: the platform's).
   */
  'keepaliveProbes': (number);
}
