// IR Listener.telemetry (access log, tracing, metric labels) → the listener's compiled telemetry, once per snapshot; the OTLP URLs it uses are
// added to `urls` so the runtime can shut down the exporters no listener names any more.
import type { Logger } from 'pino';
import type { Listener } from '../../ir/types.js';
import { AccessLogWriter } from './access-log.js';
import type { OtlpExporters } from './exporters.js';
import { MetricLabels } from './metric-labels.js';
import { ListenerTelemetry } from './request-telemetry.js';

export function listenerTelemetryOf(
  l: Listener,
  otlp: OtlpExporters,
  log: Logger,
  urls: Set<string>,
): ListenerTelemetry | undefined {
  const t = l.telemetry;
  const labels = t?.metrics?.add.length ? new MetricLabels(t.metrics) : undefined;
  if (!t || (!t.tracing && !t.accessLog && !labels)) return undefined;
  const tracesUrl = t.tracing?.otlpTracesUrl;
  const logsUrl = t.accessLog?.otlpLogsUrl;
  if (tracesUrl) urls.add(tracesUrl);
  if (logsUrl) urls.add(logsUrl);
  const accessLog = t.accessLog
    ? new AccessLogWriter(t.accessLog, log, logsUrl ? otlp.logger(logsUrl) : undefined)
    : undefined;
  return new ListenerTelemetry(l.name, tracesUrl ? otlp.tracer(tracesUrl) : undefined, accessLog, labels);
}
