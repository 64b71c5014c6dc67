// Original file: proto/gw/ir/v1/tls.proto

import type { InsecureSkipVerify as _gw_ir_v1_InsecureSkipVerify, InsecureSkipVerify__Output as _gw_ir_v1_InsecureSkipVerify__Output } from '../../../gw/ir/v1/InsecureSkipVerify.js';

/**
 * Upstream TLS settings of one route → backend edge, with every reference resolved to PEM.
 * The client key is secret material: carried only on the authenticated xDS stream, never logged.
 */
export interface BackendTls {
  /**
   * Trusted CA certificates (PEM); empty means the proxy's system roots.
   */
  'caPem'?: (string);
  /**
   * Client certificate chain (PEM, leaf first) for mutual TLS; empty means none is offered.
   */
  'clientCertChainPem'?: (string);
  /**
   * Client private key (PEM). Secret: never log it.
   */
  'clientPrivateKeyPem'?: (string);
  /**
   * Server name sent in the TLS ClientHello; empty means the backend host unless it is an IP address.
   */
  'sni'?: (string);
  'insecureSkipVerify'?: (_gw_ir_v1_InsecureSkipVerify);
  /**
   * When set, the server certificate must carry one of these DNS names or URIs instead of the host name.
   */
  'verifySubjectAltNames'?: (string)[];
  /**
   * Where the settings and references came from, e.g. `GwPolicy ns/name`; diagnostics only.
   */
  'source'?: (string);
  /**
   * `alpnProtocols`: offered in the ClientHello in this order; empty means the client's own (http/1.1, or h2
   * for HTTP/2 edges). The connection speaks what the backend selects, if the client speaks it.
   */
  'alpnProtocols'?: (string)[];
  /**
   * `keyExchangeGroups` (the API's names, e.g. X25519_MLKEM768); empty means OpenSSL's defaults.
   */
  'keyExchangeGroups'?: (string)[];
  /**
   * `certificateSource: SPIFFE`: the client certificate is the proxy's workload identity (SPIFFE SVID, or the
   * Istio mesh certificate) and the server is verified against its trust bundles; ca_pem and the client
   * certificate fields are then empty. The server's SPIFFE ID must be one of verify_subject_alt_names' URIs,
   * or, when none are given, any ID of the proxy's own trust domain. A proxy without an identity refuses it.
   */
  'workloadIdentity'?: (boolean);
}

/**
 * Upstream TLS settings of one route → backend edge, with every reference resolved to PEM.
 * The client key is secret material: carried only on the authenticated xDS stream, never logged.
 */
export interface BackendTls__Output {
  /**
   * Trusted CA certificates (PEM); empty means the proxy's system roots.
   */
  'caPem': (string);
  /**
   * Client certificate chain (PEM, leaf first) for mutual TLS; empty means none is offered.
   */
  'clientCertChainPem': (string);
  /**
   * Client private key (PEM). Secret: never log it.
   */
  'clientPrivateKeyPem': (string);
  /**
   * Server name sent in the TLS ClientHello; empty means the backend host unless it is an IP address.
   */
  'sni': (string);
  'insecureSkipVerify': (_gw_ir_v1_InsecureSkipVerify__Output);
  /**
   * When set, the server certificate must carry one of these DNS names or URIs instead of the host name.
   */
  'verifySubjectAltNames': (string)[];
  /**
   * Where the settings and references came from, e.g. `GwPolicy ns/name`; diagnostics only.
   */
  'source': (string);
  /**
   * `alpnProtocols`: offered in the ClientHello in this order; empty means the client's own (http/1.1, or h2
   * for HTTP/2 edges). The connection speaks what the backend selects, if the client speaks it.
   */
  'alpnProtocols': (string)[];
  /**
   * `keyExchangeGroups` (the API's names, e.g. X25519_MLKEM768); empty means OpenSSL's defaults.
   */
  'keyExchangeGroups': (string)[];
  /**
   * `certificateSource: SPIFFE`: the client certificate is the proxy's workload identity (SPIFFE SVID, or the
   * Istio mesh certificate) and the server is verified against its trust bundles; ca_pem and the client
   * certificate fields are then empty. The server's SPIFFE ID must be one of verify_subject_alt_names' URIs,
   * or, when none are given, any ID of the proxy's own trust domain. A proxy without an identity refuses it.
   */
  'workloadIdentity': (boolean);
}
