// Original file: proto/gw/ir/v1/backend_identity.proto

import type { OAuthClientCredential as _gw_ir_v1_OAuthClientCredential, OAuthClientCredential__Output as _gw_ir_v1_OAuthClientCredential__Output } from '../../../gw/ir/v1/OAuthClientCredential.js';
import type { CredentialLocation as _gw_ir_v1_CredentialLocation, CredentialLocation__Output as _gw_ir_v1_CredentialLocation__Output } from '../../../gw/ir/v1/CredentialLocation.js';
import type { BackendTls as _gw_ir_v1_BackendTls, BackendTls__Output as _gw_ir_v1_BackendTls__Output } from '../../../gw/ir/v1/BackendTls.js';

/**
 * RFC 8693 token exchange or RFC 7523 jwt-bearer grant, done per request (cached).
 */
export interface TokenExchangeCredential {
  /**
   * The token endpoint (scheme, host, port and path).
   */
  'tokenUrl'?: (string);
  /**
   * `urn:ietf:params:oauth:grant-type:token-exchange` or `urn:ietf:params:oauth:grant-type:jwt-bearer`.
   */
  'grantType'?: (string);
  /**
   * CEL yielding the subject token; empty means the bearer token the client sent (after validation).
   */
  'subjectSource'?: (string);
  /**
   * RFC 8693 token type URI of the subject token.
   */
  'subjectTokenType'?: (string);
  /**
   * CEL yielding the actor token; empty means none.
   */
  'actorSource'?: (string);
  'actorTokenType'?: (string);
  /**
   * The subject token's `may_act` claim must name the actor token's subject.
   */
  'mayActRequired'?: (boolean);
  'audiences'?: (string)[];
  'scopes'?: (string)[];
  'resources'?: (string)[];
  /**
   * Token type URI asked for; empty leaves requested_token_type out.
   */
  'requestedTokenType'?: (string);
  /**
   * Form parameter → CEL expression yielding its value.
   */
  'additionalParams'?: ({[key: string]: string});
  'client'?: (_gw_ir_v1_OAuthClientCredential | null);
  'location'?: (_gw_ir_v1_CredentialLocation | null);
  /**
   * 0 disables the cache.
   */
  'cacheMaxEntries'?: (number);
  /**
   * Lifetime of a token whose answer names no expires_in.
   */
  'cacheDefaultTtlSeconds'?: (number);
  /**
   * TLS to the token endpoint when it is named by a backendRef to a backend with TLS (its `policies.tls`, or the
   * BackendTLSPolicy of the Service port); unset means an `https://` token_url is checked against the system roots.
   */
  'tls'?: (_gw_ir_v1_BackendTls | null);
}

/**
 * RFC 8693 token exchange or RFC 7523 jwt-bearer grant, done per request (cached).
 */
export interface TokenExchangeCredential__Output {
  /**
   * The token endpoint (scheme, host, port and path).
   */
  'tokenUrl': (string);
  /**
   * `urn:ietf:params:oauth:grant-type:token-exchange` or `urn:ietf:params:oauth:grant-type:jwt-bearer`.
   */
  'grantType': (string);
  /**
   * CEL yielding the subject token; empty means the bearer token the client sent (after validation).
   */
  'subjectSource': (string);
  /**
   * RFC 8693 token type URI of the subject token.
   */
  'subjectTokenType': (string);
  /**
   * CEL yielding the actor token; empty means none.
   */
  'actorSource': (string);
  'actorTokenType': (string);
  /**
   * The subject token's `may_act` claim must name the actor token's subject.
   */
  'mayActRequired': (boolean);
  'audiences': (string)[];
  'scopes': (string)[];
  'resources': (string)[];
  /**
   * Token type URI asked for; empty leaves requested_token_type out.
   */
  'requestedTokenType': (string);
  /**
   * Form parameter → CEL expression yielding its value.
   */
  'additionalParams': ({[key: string]: string});
  'client': (_gw_ir_v1_OAuthClientCredential__Output | null);
  'location': (_gw_ir_v1_CredentialLocation__Output | null);
  /**
   * 0 disables the cache.
   */
  'cacheMaxEntries': (number);
  /**
   * Lifetime of a token whose answer names no expires_in.
   */
  'cacheDefaultTtlSeconds': (number);
  /**
   * TLS to the token endpoint when it is named by a backendRef to a backend with TLS (its `policies.tls`, or the
   * BackendTLSPolicy of the Service port); unset means an `https://` token_url is checked against the system roots.
   */
  'tls': (_gw_ir_v1_BackendTls__Output | null);
}
