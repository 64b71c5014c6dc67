// Original file: proto/gw/ir/v1/ir.proto

import type { BackendTls as _gw_ir_v1_BackendTls, BackendTls__Output as _gw_ir_v1_BackendTls__Output } from '../../../gw/ir/v1/BackendTls.js';

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
  /**
   * jwks.remote.backendRef: TLS to the backend `jwks_url` names (its BackendTLSPolicy, or a GwBackend's own
   * policies.tls); unset means `jwks_url` is fetched as written (https with the system roots, or http).
   */
  'jwksTls'?: (_gw_ir_v1_BackendTls | null);
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
  /**
   * jwks.remote.backendRef: TLS to the backend `jwks_url` names (its BackendTLSPolicy, or a GwBackend's own
   * policies.tls); unset means `jwks_url` is fetched as written (https with the system roots, or http).
   */
  'jwksTls': (_gw_ir_v1_BackendTls__Output | null);
}
