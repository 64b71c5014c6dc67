// Original file: proto/gw/ir/v1/ir.proto

import type { AccessLogAttribute as _gw_ir_v1_AccessLogAttribute, AccessLogAttribute__Output as _gw_ir_v1_AccessLogAttribute__Output } from '../../../gw/ir/v1/AccessLogAttribute.js';

/**
 * GwPolicy `frontend.accessLog`.
 */
export interface AccessLog {
  /**
   * spec.frontend.accessLog.preset Otel: field names after the OpenTelemetry semantic conventions.
   */
  'otelPreset'?: (boolean);
  /**
   * spec.frontend.accessLog.filter: a CEL expression; a line is written only when it evaluates to true.
   */
  'filter'?: (string);
  /**
   * spec.frontend.accessLog.attributes.add: fields whose values are CEL expressions.
   */
  'add'?: (_gw_ir_v1_AccessLogAttribute)[];
  /**
   * spec.frontend.accessLog.attributes.remove: field names left out of every line.
   */
  'remove'?: (string)[];
  /**
   * spec.frontend.accessLog.otlp: the OTLP/HTTP logs URL (ending /v1/logs) records are also exported to.
   */
  'otlpLogsUrl'?: (string);
}

/**
 * GwPolicy `frontend.accessLog`.
 */
export interface AccessLog__Output {
  /**
   * spec.frontend.accessLog.preset Otel: field names after the OpenTelemetry semantic conventions.
   */
  'otelPreset': (boolean);
  /**
   * spec.frontend.accessLog.filter: a CEL expression; a line is written only when it evaluates to true.
   */
  'filter': (string);
  /**
   * spec.frontend.accessLog.attributes.add: fields whose values are CEL expressions.
   */
  'add': (_gw_ir_v1_AccessLogAttribute__Output)[];
  /**
   * spec.frontend.accessLog.attributes.remove: field names left out of every line.
   */
  'remove': (string)[];
  /**
   * spec.frontend.accessLog.otlp: the OTLP/HTTP logs URL (ending /v1/logs) records are also exported to.
   */
  'otlpLogsUrl': (string);
}
