// Original file: proto/gw/ir/v1/ir.proto


export interface StaticBackend {
  'host'?: (string);
  'port'?: (number);
  /**
   * A Service backendRef: `ip:port` of every ready endpoint its EndpointSlices list for the referenced port,
   * sorted. Set: the proxy balances over them itself and passive health ejects each one (as Envoy does with
   * EDS); `host` stays the TLS name and the tunnel's target. Empty: the Service is reached at `host` (no slice
   * known: local mode, standalone, ExternalName). docs/proxy.md "Passive health", "Endpoints".
   */
  'endpoints'?: (string)[];
}

export interface StaticBackend__Output {
  'host': (string);
  'port': (number);
  /**
   * A Service backendRef: `ip:port` of every ready endpoint its EndpointSlices list for the referenced port,
   * sorted. Set: the proxy balances over them itself and passive health ejects each one (as Envoy does with
   * EDS); `host` stays the TLS name and the tunnel's target. Empty: the Service is reached at `host` (no slice
   * known: local mode, standalone, ExternalName). docs/proxy.md "Passive health", "Endpoints".
   */
  'endpoints': (string)[];
}
