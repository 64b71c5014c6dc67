// Original file: proto/gw/ir/v1/backend_identity.proto


/**
 * The key that signs client assertions for private_key_jwt.
 */
export interface ClientAssertionKey {
  /**
   * PEM private key (PKCS#8, PKCS#1 or SEC1). Secret.
   */
  'signingKeyPem'?: (string);
  /**
   * RS256, RS384, RS512, PS256, ES256 or ES384.
   */
  'alg'?: (string);
  'kid'?: (string);
  /**
   * The assertion's `aud`.
   */
  'audience'?: (string);
  /**
   * PEM certificate chain (leaf first) when a certificate header is sent.
   */
  'certificatePem'?: (string);
  /**
   * `x5c` or `x5t#S256`; empty sends neither.
   */
  'certificateHeader'?: (string);
}

/**
 * The key that signs client assertions for private_key_jwt.
 */
export interface ClientAssertionKey__Output {
  /**
   * PEM private key (PKCS#8, PKCS#1 or SEC1). Secret.
   */
  'signingKeyPem': (string);
  /**
   * RS256, RS384, RS512, PS256, ES256 or ES384.
   */
  'alg': (string);
  'kid': (string);
  /**
   * The assertion's `aud`.
   */
  'audience': (string);
  /**
   * PEM certificate chain (leaf first) when a certificate header is sent.
   */
  'certificatePem': (string);
  /**
   * `x5c` or `x5t#S256`; empty sends neither.
   */
  'certificateHeader': (string);
}
