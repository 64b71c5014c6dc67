// Original file: proto/gw/ir/v1/ir.proto


export interface TlsCertificate {
  /**
   * PEM chain, leaf first (the Secret's `tls.crt`).
   */
  'certChainPem'?: (string);
  /**
   * PEM private key (the Secret's `tls.key`). Secret: never log it.
   */
  'privateKeyPem'?: (string);
  /**
   * Where it came from, e.g. `Secret default/web-cert`; diagnostics only.
   */
  'source'?: (string);
}

export interface TlsCertificate__Output {
  /**
   * PEM chain, leaf first (the Secret's `tls.crt`).
   */
  'certChainPem': (string);
  /**
   * PEM private key (the Secret's `tls.key`). Secret: never log it.
   */
  'privateKeyPem': (string);
  /**
   * Where it came from, e.g. `Secret default/web-cert`; diagnostics only.
   */
  'source': (string);
}
