// Original file: proto/gw/ir/v1/ir.proto

import type { MetricLabel as _gw_ir_v1_MetricLabel, MetricLabel__Output as _gw_ir_v1_MetricLabel__Output } from '../../../gw/ir/v1/MetricLabel.js';

/**
 * GwPolicy `frontend.metrics` (docs/telemetry.md "Metric attributes").
 */
export interface ListenerMetrics {
  /**
   * spec.frontend.metrics.attributes.add: a label per item on gw_http_requests_total and
   * gw_http_request_duration_seconds, valued by a CEL expression over what access-log expressions see;
   * `unknown` when it fails. Names are Prometheus label names, unique, other than the metrics' own labels.
   */
  'add'?: (_gw_ir_v1_MetricLabel)[];
}

/**
 * GwPolicy `frontend.metrics` (docs/telemetry.md "Metric attributes").
 */
export interface ListenerMetrics__Output {
  /**
   * spec.frontend.metrics.attributes.add: a label per item on gw_http_requests_total and
   * gw_http_request_duration_seconds, valued by a CEL expression over what access-log expressions see;
   * `unknown` when it fails. Names are Prometheus label names, unique, other than the metrics' own labels.
   */
  'add': (_gw_ir_v1_MetricLabel__Output)[];
}
