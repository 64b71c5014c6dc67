// The OpenTelemetry SDK providers the proxy exports through: one tracer provider per OTLP traces URL and one
// logger provider per OTLP logs URL (OTLP/HTTP for http(s) URLs, OTLP/gRPC for grpc(s) ones), shared by every listener naming that URL and kept across snapshots
// (a push must not drop spans still batched). Providers no snapshot names any more are shut down (flushed).
// The runtime imports this module (and with it the OpenTelemetry SDK) only once a snapshot names an OTLP URL.
import type { Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { Logger as OtelLogger } from '@opentelemetry/api-logs';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { isOtlpGrpcUrl, OtlpGrpcLogExporter, OtlpGrpcTraceExporter } from './otlp-grpc.js';
import type { Tracing } from './request-telemetry.js';
import { ATTR_SERVICE_NAME } from './semconv.js';

/** How often batched spans and log records leave the proxy. */
const exportDelayMs = 1000;
const scope = 'gw-proxy';

interface Provider<T> {
  value: T;
  shutdown(): Promise<void>;
}

export class OtlpExporters {
  private readonly tracers = new Map<string, Provider<Tracer>>();
  private readonly loggers = new Map<string, Provider<OtelLogger>>();
  private readonly resource: Resource;
  private readonly propagator = new W3CTraceContextPropagator();

  constructor(serviceName = 'gw-proxy') {
    this.resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName });
  }

  /** The tracer of `url` with the W3C propagator its requests' trace context crosses the wire with. */
  tracing(url: string): Tracing {
    return { tracer: this.tracer(url), propagator: this.propagator };
  }

  tracer(url: string): Tracer {
    return this.get(this.tracers, url, () => {
      const provider = new BasicTracerProvider({
        resource: this.resource,
        spanProcessors: [
          new BatchSpanProcessor(isOtlpGrpcUrl(url) ? new OtlpGrpcTraceExporter(url) : new OTLPTraceExporter({ url }), {
            scheduledDelayMillis: exportDelayMs,
          }),
        ],
      });
      return { value: provider.getTracer(scope), shutdown: () => provider.shutdown() };
    });
  }

  logger(url: string): OtelLogger {
    return this.get(this.loggers, url, () => {
      const provider = new LoggerProvider({
        resource: this.resource,
        processors: [
          new BatchLogRecordProcessor({
            exporter: isOtlpGrpcUrl(url) ? new OtlpGrpcLogExporter(url) : new OTLPLogExporter({ url }),
            scheduledDelayMillis: exportDelayMs,
          }),
        ],
      });
      return { value: provider.getLogger(scope), shutdown: () => provider.shutdown() };
    });
  }

  /** Shuts down (after a last export) the providers of URLs not in `inUse`. */
  async retain(inUse: ReadonlySet<string>): Promise<void> {
    const done: Promise<void>[] = [];
    for (const m of [this.tracers, this.loggers] as Map<string, Provider<unknown>>[])
      for (const [url, p] of m)
        if (!inUse.has(url)) {
          m.delete(url);
          done.push(p.shutdown().catch(() => undefined));
        }
    await Promise.all(done);
  }

  close(): Promise<void> {
    return this.retain(new Set());
  }

  private get<T>(m: Map<string, Provider<T>>, url: string, make: () => Provider<T>): T {
    let p = m.get(url);
    if (!p) m.set(url, (p = make()));
    return p.value;
  }
}
