// OTLP over gRPC (`grpc://host:port`, `grpcs://host:port`): the protobuf requests the OTLP/HTTP exporters
// send, as the unary `opentelemetry.proto.collector.{trace,logs}.v1.*Service/Export` call of a gRPC channel.
// The bytes come from the OpenTelemetry serializers, so both transports send the same payload.
import * as grpc from '@grpc/grpc-js';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { ProtobufLogsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** Deadline of one Export call (the OTLP exporters' default). */
const EXPORT_TIMEOUT_MS = 10_000;
const TRACE_EXPORT = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
const LOGS_EXPORT = '/opentelemetry.proto.collector.logs.v1.LogsService/Export';

/** Whether `url` names an OTLP/gRPC endpoint rather than an OTLP/HTTP one. */
export function isOtlpGrpcUrl(url: string): boolean {
  return /^grpcs?:\/\//.test(url);
}

/** One gRPC channel to `url`'s authority and the Export call of one signal. */
class GrpcExport<T> {
  private readonly client: grpc.Client;

  constructor(
    url: string,
    private readonly method: string,
    private readonly serialize: (items: T[]) => Uint8Array | undefined,
  ) {
    const u = new URL(url);
    const creds = u.protocol === 'grpcs:' ? grpc.credentials.createSsl() : grpc.credentials.createInsecure();
    // Without a port, the OTLP/gRPC default (4317), not gRPC's own (443).
    this.client = new grpc.Client(u.port ? u.host : `${u.hostname}:4317`, creds);
  }

  export(items: T[], done: (result: ExportResult) => void): void {
    const body = this.serialize(items);
    if (!body)
      return done({ code: ExportResultCode.FAILED, error: new Error('the OTLP request could not be encoded') });
    this.client.makeUnaryRequest<Uint8Array, Buffer>(
      this.method,
      (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength),
      (b) => b,
      body,
      new grpc.Metadata(),
      { deadline: Date.now() + EXPORT_TIMEOUT_MS },
      (err) => done(err ? { code: ExportResultCode.FAILED, error: err } : { code: ExportResultCode.SUCCESS }),
    );
  }

  shutdown(): Promise<void> {
    this.client.close();
    return Promise.resolve();
  }
}

export class OtlpGrpcTraceExporter implements SpanExporter {
  private readonly call: GrpcExport<ReadableSpan>;

  constructor(url: string) {
    this.call = new GrpcExport(url, TRACE_EXPORT, (spans) => ProtobufTraceSerializer.serializeRequest(spans));
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.call.export(spans, done);
  }

  shutdown(): Promise<void> {
    return this.call.shutdown();
  }
}

export class OtlpGrpcLogExporter implements LogRecordExporter {
  private readonly call: GrpcExport<ReadableLogRecord>;

  constructor(url: string) {
    this.call = new GrpcExport(url, LOGS_EXPORT, (logs) => ProtobufLogsSerializer.serializeRequest(logs));
  }

  export(logs: ReadableLogRecord[], done: (result: ExportResult) => void): void {
    this.call.export(logs, done);
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return this.call.shutdown();
  }
}
