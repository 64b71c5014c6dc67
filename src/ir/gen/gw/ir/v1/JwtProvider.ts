// Original file: proto/gw/ir/v1/ir.proto


export interface JwtProvider {
  'issuer'?: (string);
  /**
   * Accepted `aud` values; empty accepts any audience.
   */
  'audiences'?: (string)[];
  /**
   * Signing keys: a URL, or an inline JWKS document (wins when both are set).
   */
  'jwksUrl'?: (string);
  'jwksInline'?: (string);
  /**
   * jwks.remote.cacheDuration: fetched keys are refetched on first use after this long; 0 means 5 minutes.
   */
  'jwksCacheSeconds'?: (number);
}

export interface JwtProvider__Output {
  'issuer': (string);
  /**
   * Accepted `aud` values; empty accepts any audience.
   */
  'audiences': (string)[];
  /**
   * Signing keys: a URL, or an inline JWKS document (wins when both are set).
   */
  'jwksUrl': (string);
  'jwksInline': (string);
  /**
   * jwks.remote.cacheDuration: fetched keys are refetched on first use after this long; 0 means 5 minutes.
   */
  'jwksCacheSeconds': (number);
}
