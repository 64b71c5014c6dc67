// Original file: proto/gw/ir/v1/upstream.proto


/**
 * An HTTP forward proxy an edge's upstream connections go through (GwPolicy `backend.tunnel`).
 */
export interface UpstreamTunnel {
  /**
   * The forward proxy's address.
   */
  'host'?: (string);
  'port'?: (number);
  /**
   * The proxy's URL is https: TLS to the proxy (system roots), then CONNECT inside it.
   */
  'tls'?: (boolean);
  /**
   * Connect: every connection is a CONNECT tunnel; otherwise (Auto) plaintext HTTP upstreams get
   * absolute-form requests sent to the proxy and TLS upstreams a CONNECT tunnel.
   */
  'connectAlways'?: (boolean);
  /**
   * `Proxy-Authorization` value (`Basic …`) from the referenced Secret; empty means none. Secret: never log it.
   */
  'proxyAuthorization'?: (string);
  /**
   * Where the settings came from, e.g. `GwPolicy ns/name`; diagnostics only.
   */
  'source'?: (string);
}

/**
 * An HTTP forward proxy an edge's upstream connections go through (GwPolicy `backend.tunnel`).
 */
export interface UpstreamTunnel__Output {
  /**
   * The forward proxy's address.
   */
  'host': (string);
  'port': (number);
  /**
   * The proxy's URL is https: TLS to the proxy (system roots), then CONNECT inside it.
   */
  'tls': (boolean);
  /**
   * Connect: every connection is a CONNECT tunnel; otherwise (Auto) plaintext HTTP upstreams get
   * absolute-form requests sent to the proxy and TLS upstreams a CONNECT tunnel.
   */
  'connectAlways': (boolean);
  /**
   * `Proxy-Authorization` value (`Basic …`) from the referenced Secret; empty means none. Secret: never log it.
   */
  'proxyAuthorization': (string);
  /**
   * Where the settings came from, e.g. `GwPolicy ns/name`; diagnostics only.
   */
  'source': (string);
}
