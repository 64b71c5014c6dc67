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
  /**
   * The connection settings below act before a request names its listener, so they hold per port: the
   * proxy applies the smallest value any listener on the port sets.
   * spec.frontend.tcp.keepalive.time in ms: idle time before the first TCP keepalive probe.
   */
  'keepaliveTimeMs'?: (number);
  /**
   * spec.frontend.http.http1IdleTimeout in ms: an idle HTTP/1.1 keep-alive connection is closed after it.
   */
  'http1IdleTimeoutMs'?: (number);
  /**
   * spec.frontend.http.maxConnectionDuration in ms: a connection older than this is closed after its
   * current request (HTTP/1.1: `Connection: close`).
   */
  'maxConnectionDurationMs'?: (number);
  /**
   * spec.frontend.http.http1MaxHeaders: a request with more header fields gets 431 (per listener).
   */
  'http1MaxHeaders'?: (number);
  /**
   * HTTP/2 SETTINGS and pings of connections that negotiate h2 (per port, smallest value).
   * spec.frontend.http.http2WindowSize: SETTINGS_INITIAL_WINDOW_SIZE (bytes).
   */
  'http2WindowSize'?: (number);
  /**
   * spec.frontend.http.http2ConnectionWindowSize: the connection-level receive window (bytes).
   */
  'http2ConnectionWindowSize'?: (number);
  /**
   * spec.frontend.http.http2FrameSize: SETTINGS_MAX_FRAME_SIZE (bytes).
   */
  'http2FrameSize'?: (number);
  /**
   * spec.frontend.http.http2MaxHeaderSize: SETTINGS_MAX_HEADER_LIST_SIZE (bytes).
   */
  'http2MaxHeaderSize'?: (number);
  /**
   * spec.frontend.http.http2KeepaliveInterval in ms: a PING this often; unset: no pings.
   */
  'http2KeepaliveIntervalMs'?: (number);
  /**
   * spec.frontend.http.http2KeepaliveTimeout in ms: a PING unanswered this long closes the connection.
   */
  'http2KeepaliveTimeoutMs'?: (number);
  /**
   * spec.frontend.http.maxBufferSize (bytes): the request-body limit of routes on this listener that set
   * no `buffer.request.maxBytes` (a route on several listeners takes the smallest); unset: 2 MiB.
   */
  'maxBufferSize'?: (number);
  /**
   * spec.frontend.tcp.keepalive.interval in ms: time between unanswered keepalive probes (per port, smallest).
   */
  'keepaliveIntervalMs'?: (number);
  /**
   * spec.frontend.tcp.keepalive.retries: unanswered probes before the connection is dropped (per port, smallest).
   */
  'keepaliveProbes'?: (number);
  /**
   * spec.frontend.http.http1HeaderCase Preserve: forwarded HTTP/1.1 requests and responses keep each header
   * name's case (per listener; unset or Lowercase: names are lower-cased, as HTTP/2 requires anyway).
   */
  'http1PreserveHeaderCase'?: (boolean);
  '_maxConcurrentRequests'?: "maxConcurrentRequests";
  '_maxConnections'?: "maxConnections";
  '_keepaliveTimeMs'?: "keepaliveTimeMs";
  '_http1IdleTimeoutMs'?: "http1IdleTimeoutMs";
  '_maxConnectionDurationMs'?: "maxConnectionDurationMs";
  '_http1MaxHeaders'?: "http1MaxHeaders";
  '_http2WindowSize'?: "http2WindowSize";
  '_http2ConnectionWindowSize'?: "http2ConnectionWindowSize";
  '_http2FrameSize'?: "http2FrameSize";
  '_http2MaxHeaderSize'?: "http2MaxHeaderSize";
  '_http2KeepaliveIntervalMs'?: "http2KeepaliveIntervalMs";
  '_http2KeepaliveTimeoutMs'?: "http2KeepaliveTimeoutMs";
  '_maxBufferSize'?: "maxBufferSize";
  '_keepaliveIntervalMs'?: "keepaliveIntervalMs";
  '_keepaliveProbes'?: "keepaliveProbes";
  '_http1PreserveHeaderCase'?: "http1PreserveHeaderCase";
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
  /**
   * The connection settings below act before a request names its listener, so they hold per port: the
   * proxy applies the smallest value any listener on the port sets.
   * spec.frontend.tcp.keepalive.time in ms: idle time before the first TCP keepalive probe.
   */
  'keepaliveTimeMs'?: (number);
  /**
   * spec.frontend.http.http1IdleTimeout in ms: an idle HTTP/1.1 keep-alive connection is closed after it.
   */
  'http1IdleTimeoutMs'?: (number);
  /**
   * spec.frontend.http.maxConnectionDuration in ms: a connection older than this is closed after its
   * current request (HTTP/1.1: `Connection: close`).
   */
  'maxConnectionDurationMs'?: (number);
  /**
   * spec.frontend.http.http1MaxHeaders: a request with more header fields gets 431 (per listener).
   */
  'http1MaxHeaders'?: (number);
  /**
   * HTTP/2 SETTINGS and pings of connections that negotiate h2 (per port, smallest value).
   * spec.frontend.http.http2WindowSize: SETTINGS_INITIAL_WINDOW_SIZE (bytes).
   */
  'http2WindowSize'?: (number);
  /**
   * spec.frontend.http.http2ConnectionWindowSize: the connection-level receive window (bytes).
   */
  'http2ConnectionWindowSize'?: (number);
  /**
   * spec.frontend.http.http2FrameSize: SETTINGS_MAX_FRAME_SIZE (bytes).
   */
  'http2FrameSize'?: (number);
  /**
   * spec.frontend.http.http2MaxHeaderSize: SETTINGS_MAX_HEADER_LIST_SIZE (bytes).
   */
  'http2MaxHeaderSize'?: (number);
  /**
   * spec.frontend.http.http2KeepaliveInterval in ms: a PING this often; unset: no pings.
   */
  'http2KeepaliveIntervalMs'?: (number);
  /**
   * spec.frontend.http.http2KeepaliveTimeout in ms: a PING unanswered this long closes the connection.
   */
  'http2KeepaliveTimeoutMs'?: (number);
  /**
   * spec.frontend.http.maxBufferSize (bytes): the request-body limit of routes on this listener that set
   * no `buffer.request.maxBytes` (a route on several listeners takes the smallest); unset: 2 MiB.
   */
  'maxBufferSize'?: (number);
  /**
   * spec.frontend.tcp.keepalive.interval in ms: time between unanswered keepalive probes (per port, smallest).
   */
  'keepaliveIntervalMs'?: (number);
  /**
   * spec.frontend.tcp.keepalive.retries: unanswered probes before the connection is dropped (per port, smallest).
   */
  'keepaliveProbes'?: (number);
  /**
   * spec.frontend.http.http1HeaderCase Preserve: forwarded HTTP/1.1 requests and responses keep each header
   * name's case (per listener; unset or Lowercase: names are lower-cased, as HTTP/2 requires anyway).
   */
  'http1PreserveHeaderCase'?: (boolean);
  '_maxConcurrentRequests'?: "maxConcurrentRequests";
  '_maxConnections'?: "maxConnections";
  '_keepaliveTimeMs'?: "keepaliveTimeMs";
  '_http1IdleTimeoutMs'?: "http1IdleTimeoutMs";
  '_maxConnectionDurationMs'?: "maxConnectionDurationMs";
  '_http1MaxHeaders'?: "http1MaxHeaders";
  '_http2WindowSize'?: "http2WindowSize";
  '_http2ConnectionWindowSize'?: "http2ConnectionWindowSize";
  '_http2FrameSize'?: "http2FrameSize";
  '_http2MaxHeaderSize'?: "http2MaxHeaderSize";
  '_http2KeepaliveIntervalMs'?: "http2KeepaliveIntervalMs";
  '_http2KeepaliveTimeoutMs'?: "http2KeepaliveTimeoutMs";
  '_maxBufferSize'?: "maxBufferSize";
  '_keepaliveIntervalMs'?: "keepaliveIntervalMs";
  '_keepaliveProbes'?: "keepaliveProbes";
  '_http1PreserveHeaderCase'?: "http1PreserveHeaderCase";
}
