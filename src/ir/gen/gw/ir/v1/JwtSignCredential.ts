// Original file: proto/gw/ir/v1/backend_identity.proto

import type { CredentialLocation as _gw_ir_v1_CredentialLocation, CredentialLocation__Output as _gw_ir_v1_CredentialLocation__Output } from '../../../gw/ir/v1/CredentialLocation.js';

/**
 * A JWT the proxy signs itself (JwtSignAuth), refreshed before it expires.
 */
export interface JwtSignCredential {
  /**
   * PEM private key (RSA or EC). Secret.
   */
  'signingKeyPem'?: (string);
  'alg'?: (string);
  'kid'?: (string);
  /**
   * Static claims, a JSON object text without iat, exp or nbf.
   */
  'claimsJson'?: (string);
  'ttlSeconds'?: (number);
  'location'?: (_gw_ir_v1_CredentialLocation | null);
}

/**
 * A JWT the proxy signs itself (JwtSignAuth), refreshed before it expires.
 */
export interface JwtSignCredential__Output {
  /**
   * PEM private key (RSA or EC). Secret.
   */
  'signingKeyPem': (string);
  'alg': (string);
  'kid': (string);
  /**
   * Static claims, a JSON object text without iat, exp or nbf.
   */
  'claimsJson': (string);
  'ttlSeconds': (number);
  'location': (_gw_ir_v1_CredentialLocation__Output | null);
}
