// Original file: proto/gw/ir/v1/backend_identity.proto

import type { ClientAssertionKey as _gw_ir_v1_ClientAssertionKey, ClientAssertionKey__Output as _gw_ir_v1_ClientAssertionKey__Output } from '../../../gw/ir/v1/ClientAssertionKey.js';

/**
 * How the proxy authenticates itself to a token endpoint (OAuthClientAuth).
 */
export interface OAuthClientCredential {
  'clientId'?: (string);
  /**
   * client_secret_basic (RFC 6749 §2.3.1). Secret.
   */
  'basicSecret'?: (string);
  /**
   * client_secret_post. Secret.
   */
  'postSecret'?: (string);
  /**
   * private_key_jwt (RFC 7523 §2.2).
   */
  'privateKeyJwt'?: (_gw_ir_v1_ClientAssertionKey | null);
  'method'?: "basicSecret"|"postSecret"|"privateKeyJwt";
}

/**
 * How the proxy authenticates itself to a token endpoint (OAuthClientAuth).
 */
export interface OAuthClientCredential__Output {
  'clientId': (string);
  /**
   * client_secret_basic (RFC 6749 §2.3.1). Secret.
   */
  'basicSecret'?: (string);
  /**
   * client_secret_post. Secret.
   */
  'postSecret'?: (string);
  /**
   * private_key_jwt (RFC 7523 §2.2).
   */
  'privateKeyJwt'?: (_gw_ir_v1_ClientAssertionKey__Output | null);
  'method'?: "basicSecret"|"postSecret"|"privateKeyJwt";
}
