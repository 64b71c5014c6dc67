// Original file: proto/gw/ir/v1/ir.proto

import type { TlsCertificate as _gw_ir_v1_TlsCertificate, TlsCertificate__Output as _gw_ir_v1_TlsCertificate__Output } from '../../../gw/ir/v1/TlsCertificate.js';
import type { TlsProtocolVersion as _gw_ir_v1_TlsProtocolVersion, TlsProtocolVersion__Output as _gw_ir_v1_TlsProtocolVersion__Output } from '../../../gw/ir/v1/TlsProtocolVersion.js';

/**
 * TLS termination settings of an HTTPS listener, resolved from its certificate Secrets.
 * The private keys are secret material: they are carried only on the authenticated xDS stream and are
 * never logged, nor rendered in status, errors or golden files (those show a fingerprint).
 */
export interface ListenerTls {
  /**
   * One pair per certificateRef, in order (e.g. RSA and ECDSA); the TLS stack picks one per client.
   */
  'certificates'?: (_gw_ir_v1_TlsCertificate)[];
  /**
   * spec.frontend.tls of the listener's merged frontend policy. Versions, cipher suites, groups and the
   * handshake timeout are settled before SNI picks a listener, so they hold per bind: the translator
   * refuses them when listeners sharing a port disagree. ALPN is chosen per listener (by SNI).
   * minProtocolVersion; unspecified: TLS 1.2.
   */
  'minProtocolVersion'?: (_gw_ir_v1_TlsProtocolVersion);
  /**
   * maxProtocolVersion; unspecified: TLS 1.3.
   */
  'maxProtocolVersion'?: (_gw_ir_v1_TlsProtocolVersion);
  /**
   * cipherSuites, by their API (IANA-style) names, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256; empty: OpenSSL's defaults.
   */
  'cipherSuites'?: (string)[];
  /**
   * keyExchangeGroups the proxy can offer (X25519, P-256, P-384); empty: OpenSSL's defaults.
   */
  'keyExchangeGroups'?: (string)[];
  /**
   * alpnProtocols in preference order; empty: every protocol the proxy speaks.
   */
  'alpnProtocols'?: (string)[];
  /**
   * handshakeTimeout in milliseconds; 0: 15 s (the API's default).
   */
  'handshakeTimeoutMs'?: (number);
  /**
   * Listener option `tls-certificate-source: SPIFFE`: the served certificate is the proxy's workload identity
   * (SPIFFE X.509 SVID, or the Istio mesh certificate), replaced on every rotation for new handshakes;
   * `certificates` is then empty. A proxy without an identity completes no handshake on this listener.
   */
  'workloadIdentity'?: (boolean);
  /**
   * Listener option `tls-client-verification: SPIFFE`: every client presents a certificate that chains to the
   * trust bundle of the proxy's own trust domain and carries a SPIFFE ID of that domain; others are closed
   * before any request is read.
   */
  'clientWorkloadIdentity'?: (boolean);
}

/**
 * TLS termination settings of an HTTPS listener, resolved from its certificate Secrets.
 * The private keys are secret material: they are carried only on the authenticated xDS stream and are
 * never logged, nor rendered in status, errors or golden files (those show a fingerprint).
 */
export interface ListenerTls__Output {
  /**
   * One pair per certificateRef, in order (e.g. RSA and ECDSA); the TLS stack picks one per client.
   */
  'certificates': (_gw_ir_v1_TlsCertificate__Output)[];
  /**
   * spec.frontend.tls of the listener's merged frontend policy. Versions, cipher suites, groups and the
   * handshake timeout are settled before SNI picks a listener, so they hold per bind: the translator
   * refuses them when listeners sharing a port disagree. ALPN is chosen per listener (by SNI).
   * minProtocolVersion; unspecified: TLS 1.2.
   */
  'minProtocolVersion': (_gw_ir_v1_TlsProtocolVersion__Output);
  /**
   * maxProtocolVersion; unspecified: TLS 1.3.
   */
  'maxProtocolVersion': (_gw_ir_v1_TlsProtocolVersion__Output);
  /**
   * cipherSuites, by their API (IANA-style) names, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256; empty: OpenSSL's defaults.
   */
  'cipherSuites': (string)[];
  /**
   * keyExchangeGroups the proxy can offer (X25519, P-256, P-384); empty: OpenSSL's defaults.
   */
  'keyExchangeGroups': (string)[];
  /**
   * alpnProtocols in preference order; empty: every protocol the proxy speaks.
   */
  'alpnProtocols': (string)[];
  /**
   * handshakeTimeout in milliseconds; 0: 15 s (the API's default).
   */
  'handshakeTimeoutMs': (number);
  /**
   * Listener option `tls-certificate-source: SPIFFE`: the served certificate is the proxy's workload identity
   * (SPIFFE X.509 SVID, or the Istio mesh certificate), replaced on every rotation for new handshakes;
   * `certificates` is then empty. A proxy without an identity completes no handshake on this listener.
   */
  'workloadIdentity': (boolean);
  /**
   * Listener option `tls-client-verification: SPIFFE`: every client presents a certificate that chains to the
   * trust bundle of the proxy's own trust domain and carries a SPIFFE ID of that domain; others are closed
   * before any request is read.
   */
  'clientWorkloadIdentity': (boolean);
}
