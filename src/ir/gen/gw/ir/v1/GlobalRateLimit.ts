// Original file: proto/gw/ir/v1/ir.proto

import type { BackendTls as _gw_ir_v1_BackendTls, BackendTls__Output as _gw_ir_v1_BackendTls__Output } from '../../../gw/ir/v1/BackendTls.js';
import type { GlobalRateLimitDescriptor as _gw_ir_v1_GlobalRateLimitDescriptor, GlobalRateLimitDescriptor__Output as _gw_ir_v1_GlobalRateLimitDescriptor__Output } from '../../../gw/ir/v1/GlobalRateLimitDescriptor.js';

/**
 * Limits kept by an Envoy rate-limit service (envoy.service.ratelimit.v3.RateLimitService), shared by replicas.
 */
export interface GlobalRateLimit {
  /**
   * grpc://host:port (plaintext HTTP/2) or grpcs://host:port (TLS).
   */
  'url'?: (string);
  /**
   * TLS towards the service: from the backend.tls of the GwBackend its backendRef names.
   */
  'tls'?: (_gw_ir_v1_BackendTls | null);
  /**
   * The RateLimitRequest's domain.
   */
  'domain'?: (string);
  /**
   * Sent together in one call; a descriptor with an entry that does not evaluate to text is left out.
   */
  'descriptors'?: (_gw_ir_v1_GlobalRateLimitDescriptor)[];
  /**
   * FailOpen: the request goes on when the service cannot answer in time; otherwise 503.
   */
  'failOpen'?: (boolean);
  /**
   * The call's deadline; 0 means the proxy default (500ms).
   */
  'timeoutMs'?: (number);
}

/**
 * Limits kept by an Envoy rate-limit service (envoy.service.ratelimit.v3.RateLimitService), shared by replicas.
 */
export interface GlobalRateLimit__Output {
  /**
   * grpc://host:port (plaintext HTTP/2) or grpcs://host:port (TLS).
   */
  'url': (string);
  /**
   * TLS towards the service: from the backend.tls of the GwBackend its backendRef names.
   */
  'tls': (_gw_ir_v1_BackendTls__Output | null);
  /**
   * The RateLimitRequest's domain.
   */
  'domain': (string);
  /**
   * Sent together in one call; a descriptor with an entry that does not evaluate to text is left out.
   */
  'descriptors': (_gw_ir_v1_GlobalRateLimitDescriptor__Output)[];
  /**
   * FailOpen: the request goes on when the service cannot answer in time; otherwise 503.
   */
  'failOpen': (boolean);
  /**
   * The call's deadline; 0 means the proxy default (500ms).
   */
  'timeoutMs': (number);
}
