// Original file: proto/gw/ir/v1/ir.proto

import type { AccessLogAttribute as _gw_ir_v1_AccessLogAttribute, AccessLogAttribute__Output as _gw_ir_v1_AccessLogAttribute__Output } from '../../../gw/ir/v1/AccessLogAttribute.js';
import type { AccessLogPreset as _gw_ir_v1_AccessLogPreset, AccessLogPreset__Output as _gw_ir_v1_AccessLogPreset__Output } from '../../../gw/ir/v1/AccessLogPreset.js';

/**
 * A listener's access log (docs/proxy.md "Access log"): one structured line per request, written when the
 * response ends, through the proxy's logger.
 */
export interface AccessLog {
  /**
   * CEL over the request's variables: a line is written only when it evaluates to true. Empty: every request.
   */
  'filter'?: (string);
  /**
   * Fields added to every line: name → CEL expression; a pair whose evaluation fails is left out.
   */
  'add'?: (_gw_ir_v1_AccessLogAttribute)[];
  /**
   * Field names removed from every line (built-in or added).
   */
  'remove'?: (string)[];
  /**
   * OTEL: field names follow OpenTelemetry's semantic conventions (`http.request.method`, ...).
   */
  'preset'?: (_gw_ir_v1_AccessLogPreset);
}

/**
 * A listener's access log (docs/proxy.md "Access log"): one structured line per request, written when the
 * response ends, through the proxy's logger.
 */
export interface AccessLog__Output {
  /**
   * CEL over the request's variables: a line is written only when it evaluates to true. Empty: every request.
   */
  'filter': (string);
  /**
   * Fields added to every line: name → CEL expression; a pair whose evaluation fails is left out.
   */
  'add': (_gw_ir_v1_AccessLogAttribute__Output)[];
  /**
   * Field names removed from every line (built-in or added).
   */
  'remove': (string)[];
  /**
   * OTEL: field names follow OpenTelemetry's semantic conventions (`http.request.method`, ...).
   */
  'preset': (_gw_ir_v1_AccessLogPreset__Output);
}
