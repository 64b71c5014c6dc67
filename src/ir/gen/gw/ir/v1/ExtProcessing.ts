// Original file: proto/gw/ir/v1/ir.proto

import type { ExtProcBodyMode as _gw_ir_v1_ExtProcBodyMode, ExtProcBodyMode__Output as _gw_ir_v1_ExtProcBodyMode__Output } from '../../../gw/ir/v1/ExtProcBodyMode.js';

/**
 * An external processor asked over envoy.service.ext_proc.v3.ExternalProcessor/Process (docs/proxy.md
 * "External processing"). Header phases default to sent, as in Envoy; trailers to skipped.
 */
export interface ExtProcessing {
  /**
   * grpc://host:port (plaintext HTTP/2) or grpcs://host:port (TLS, system roots).
   */
  'url'?: (string);
  /**
   * FailOpen: a failed call continues unprocessed while the unprocessed message can still be sent as is.
   */
  'failOpen'?: (boolean);
  'skipRequestHeaders'?: (boolean);
  'skipResponseHeaders'?: (boolean);
  'requestBody'?: (_gw_ir_v1_ExtProcBodyMode);
  'responseBody'?: (_gw_ir_v1_ExtProcBodyMode);
  'sendRequestTrailers'?: (boolean);
  'sendResponseTrailers'?: (boolean);
  /**
   * Each message's answer must arrive within this; 0 means the proxy default (docs/proxy.md).
   */
  'timeoutMs'?: (number);
  /**
   * Namespace → CEL over request.* and jwt.*: sent as metadata_context.filter_metadata.
   */
  'metadataContext'?: ({[key: string]: string});
  /**
   * Attribute name → CEL over request.* and jwt.*: sent with the request's first message.
   */
  'requestAttributes'?: ({[key: string]: string});
  /**
   * Attribute name → CEL over request.*, jwt.* and response.*: sent with the response headers.
   */
  'responseAttributes'?: ({[key: string]: string});
}

/**
 * An external processor asked over envoy.service.ext_proc.v3.ExternalProcessor/Process (docs/proxy.md
 * "External processing"). Header phases default to sent, as in Envoy; trailers to skipped.
 */
export interface ExtProcessing__Output {
  /**
   * grpc://host:port (plaintext HTTP/2) or grpcs://host:port (TLS, system roots).
   */
  'url': (string);
  /**
   * FailOpen: a failed call continues unprocessed while the unprocessed message can still be sent as is.
   */
  'failOpen': (boolean);
  'skipRequestHeaders': (boolean);
  'skipResponseHeaders': (boolean);
  'requestBody': (_gw_ir_v1_ExtProcBodyMode__Output);
  'responseBody': (_gw_ir_v1_ExtProcBodyMode__Output);
  'sendRequestTrailers': (boolean);
  'sendResponseTrailers': (boolean);
  /**
   * Each message's answer must arrive within this; 0 means the proxy default (docs/proxy.md).
   */
  'timeoutMs': (number);
  /**
   * Namespace → CEL over request.* and jwt.*: sent as metadata_context.filter_metadata.
   */
  'metadataContext': ({[key: string]: string});
  /**
   * Attribute name → CEL over request.* and jwt.*: sent with the request's first message.
   */
  'requestAttributes': ({[key: string]: string});
  /**
   * Attribute name → CEL over request.*, jwt.* and response.*: sent with the response headers.
   */
  'responseAttributes': ({[key: string]: string});
}
