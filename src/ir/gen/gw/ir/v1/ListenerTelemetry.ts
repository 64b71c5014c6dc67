// Original file: proto/gw/ir/v1/ir.proto

import type { AccessLog as _gw_ir_v1_AccessLog, AccessLog__Output as _gw_ir_v1_AccessLog__Output } from '../../../gw/ir/v1/AccessLog.js';
import type { Tracing as _gw_ir_v1_Tracing, Tracing__Output as _gw_ir_v1_Tracing__Output } from '../../../gw/ir/v1/Tracing.js';
import type { ListenerMetrics as _gw_ir_v1_ListenerMetrics, ListenerMetrics__Output as _gw_ir_v1_ListenerMetrics__Output } from '../../../gw/ir/v1/ListenerMetrics.js';

/**
 * What the proxy records about this listener's requests (docs/telemetry.md).
 */
export interface ListenerTelemetry {
  /**
   * spec.frontend.accessLog: one line per request; absent: no access log.
   */
  'accessLog'?: (_gw_ir_v1_AccessLog | null);
  /**
   * spec.frontend.tracing: spans exported over OTLP; absent: no spans are made.
   */
  'tracing'?: (_gw_ir_v1_Tracing | null);
  /**
   * spec.frontend.metrics: labels added to the request metrics of this listener's requests; absent: none.
   */
  'metrics'?: (_gw_ir_v1_ListenerMetrics | null);
}

/**
 * What the proxy records about this listener's requests (docs/telemetry.md).
 */
export interface ListenerTelemetry__Output {
  /**
   * spec.frontend.accessLog: one line per request; absent: no access log.
   */
  'accessLog': (_gw_ir_v1_AccessLog__Output | null);
  /**
   * spec.frontend.tracing: spans exported over OTLP; absent: no spans are made.
   */
  'tracing': (_gw_ir_v1_Tracing__Output | null);
  /**
   * spec.frontend.metrics: labels added to the request metrics of this listener's requests; absent: none.
   */
  'metrics': (_gw_ir_v1_ListenerMetrics__Output | null);
}
