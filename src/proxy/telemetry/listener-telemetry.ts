// IR Listener.telemetry (access log, tracing, metric labels) → the listener's compiled telemetry, once per snapshot; the OTLP URLs it uses are
// added to `urls` so the runtime can shut down the exporters no listener names any more.
import type { Logger } from 'pino';
import type { Listener } from '../../ir/types.js';
import { AccessLogWriter } from './access-log.js';
import type { AccessTail } from './access-tail.js';
import type { OtlpExporters } from './exporters.js';
import { MetricLabels } from './metric-labels.js';
import { ListenerTelemetry } from './request-telemetry.js';

/** The OTLP URLs a listener's telemetry exports to (the runtime loads the OpenTelemetry SDK only for these). */
export function otlpUrlsOf(l: Listener): string[] {
  const urls = [l.telemetry?.tracing?.otlpTracesUrl, l.telemetry?.accessLog?.otlpLogsUrl];
  return urls.filter((u): u is string => !!u);
}

/** `otlp` is set whenever a listener names an OTLP URL (`otlpUrlsOf`). */
export function listenerTelemetryOf(
  l: Listener,
  otlp: OtlpExporters | undefined,
  log: Logger,
  urls: Set<string>,
  tail?: AccessTail,
): ListenerTelemetry | undefined {
  const t = l.telemetry;
  const labels = t?.metrics?.add.length ? new MetricLabels(t.metrics) : undefined;
  if (!t || (!t.tracing && !t.accessLog && !labels)) return undefined;
  const tracesUrl = t.tracing?.otlpTracesUrl;
  const logsUrl = t.accessLog?.otlpLogsUrl;
  if (tracesUrl) urls.add(tracesUrl);
  if (logsUrl) urls.add(logsUrl);
  if ((tracesUrl || logsUrl) && !otlp) throw new Error(`listener ${l.name} exports OTLP before the SDK was loaded`);
  const accessLog = t.accessLog
    ? new AccessLogWriter(t.accessLog, log, logsUrl ? otlp?.logger(logsUrl) : undefined, tail)
    : undefined;
  return new ListenerTelemetry(l.name, tracesUrl ? otlp?.tracing(tracesUrl) : undefined, accessLog, labels);
}
