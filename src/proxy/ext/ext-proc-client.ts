// The client side of envoy.service.ext_proc.v3.ExternalProcessor/Process: one bidirectional stream per
// request, over @grpc/grpc-js with proto/envoy/service/ext_proc/v3 loaded at run time. A message is
// answered in order; an answer that does not arrive within the timeout, a stream error or a closed stream
// is an ExtProcFailure, which the caller turns into failureMode's outcome.
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { Logger } from 'pino';

// proto/ sits three levels above this file both in src/proxy/ext and in dist/proxy/ext.
const PROTO_ROOT = fileURLToPath(new URL('../../../proto', import.meta.url));
const PROTO_FILE = 'envoy/service/ext_proc/v3/external_processor.proto';
const SERVICE = 'envoy.service.ext_proc.v3.ExternalProcessor';

export interface WireHeader {
  key: string;
  value?: string;
  rawValue?: Buffer;
}
export interface HeaderMap {
  headers: WireHeader[];
}
export interface HeaderValueOption {
  header?: WireHeader | null;
  append?: { value: boolean } | null;
  appendAction?: 'APPEND_IF_EXISTS_OR_ADD' | 'ADD_IF_ABSENT' | 'OVERWRITE_IF_EXISTS_OR_ADD' | 'OVERWRITE_IF_EXISTS';
  keepEmptyValue?: boolean;
}
export interface HeaderMutation {
  setHeaders: HeaderValueOption[];
  removeHeaders: string[];
}
export interface BodyMutation {
  mutation?: 'body' | 'clearBody' | 'streamedResponse';
  body?: Buffer;
  clearBody?: boolean;
  streamedResponse?: { body: Buffer; endOfStream: boolean } | null;
}
export interface CommonResponse {
  status: 'CONTINUE' | 'CONTINUE_AND_REPLACE';
  headerMutation?: HeaderMutation | null;
  bodyMutation?: BodyMutation | null;
  trailers?: HeaderMap | null;
  clearRouteCache: boolean;
}
export interface ImmediateResponse {
  status?: { code: number | string } | null;
  headers?: HeaderMutation | null;
  body: Buffer;
  grpcStatus?: { status: number } | null;
  details: string;
}
/** Which message an answer is: the oneof's member name. */
export type Phase =
  'requestHeaders' | 'responseHeaders' | 'requestBody' | 'responseBody' | 'requestTrailers' | 'responseTrailers';
export interface ProcessingResponse {
  response?: Phase | 'immediateResponse';
  requestHeaders?: { response?: CommonResponse | null };
  responseHeaders?: { response?: CommonResponse | null };
  requestBody?: { response?: CommonResponse | null };
  responseBody?: { response?: CommonResponse | null };
  requestTrailers?: { headerMutation?: HeaderMutation | null };
  responseTrailers?: { headerMutation?: HeaderMutation | null };
  immediateResponse?: ImmediateResponse;
  /** google.protobuf.Struct as proto-loader decodes it ({ fields: { name: Value } }). */
  dynamicMetadata?: StructValue | null;
}
export interface StructValue {
  fields: Record<string, unknown>;
}
/** One message to the processor; Struct values are written in protobuf's Struct shape (toStruct). */
export type ProcessingRequest = Partial<
  Record<
    Phase,
    { headers?: HeaderMap; endOfStream?: boolean } | { body: Buffer; endOfStream: boolean } | { trailers: HeaderMap }
  >
> & {
  metadataContext?: { filterMetadata: Record<string, StructValue> };
  attributes?: Record<string, StructValue>;
};

/** A call that did not give an answer: the processor is unreachable, failed, closed the stream or was too slow. */
export class ExtProcFailure extends Error {}

interface Loaded {
  Client: new (address: string, credentials: grpc.ChannelCredentials) => grpc.Client;
  process: grpc.MethodDefinition<ProcessingRequest, ProcessingResponse>;
  /** envoy.type.v3.StatusCode: enums load as names, and Envoy names most HTTP status codes. */
  statusCodes: Map<string, number>;
}
let loaded: Loaded | undefined;

/** The service as proto-loader reads it, once per process. */
function processorService(): Loaded {
  if (loaded) return loaded;
  const pkg = protoLoader.loadSync(PROTO_FILE, {
    includeDirs: [PROTO_ROOT],
    keepCase: false,
    longs: Number,
    enums: String,
    defaults: true,
    arrays: true,
    oneofs: true,
  });
  const def = pkg[SERVICE] as grpc.ServiceDefinition | undefined;
  const process = def?.Process as grpc.MethodDefinition<ProcessingRequest, ProcessingResponse> | undefined;
  if (!def || !process) throw new Error(`${PROTO_FILE}: service ${SERVICE} with method Process not found`);
  const codes = pkg['envoy.type.v3.StatusCode'] as
    { type?: { value?: { name: string; number: number }[] } } | undefined;
  const statusCodes = new Map((codes?.type?.value ?? []).map((v) => [v.name, v.number] as const));
  loaded = { Client: grpc.makeGenericClientConstructor(def, 'ExternalProcessor'), process, statusCodes };
  return loaded;
}

/** An HttpStatus code as its number (the loader gives the names Envoy's StatusCode enum has); 0 when unknown. */
export function statusNumber(code: number | string | undefined): number {
  if (typeof code === 'number') return code;
  return (code !== undefined && processorService().statusCodes.get(code)) || 0;
}

/** One channel per processor URL, shared by every request of every route that names it. */
export class ExtProcClients {
  private readonly clients = new Map<string, grpc.Client>();
  constructor(readonly log: Logger) {}

  /** Opens a Process stream to `url` (grpc:// or grpcs://); the caller ends it with `close()`. */
  open(url: string, timeoutMs: number, metadata: Record<string, string> = {}): ProcessorStream {
    let client = this.clients.get(url);
    if (!client) {
      const u = new URL(url);
      const credentials = u.protocol === 'grpcs:' ? grpc.credentials.createSsl() : grpc.credentials.createInsecure();
      client = new (processorService().Client)(u.host, credentials);
      this.clients.set(url, client);
    }
    const md = new grpc.Metadata();
    for (const [k, v] of Object.entries(metadata)) md.set(k, v);
    const { process } = processorService();
    const call = client.makeBidiStreamRequest(process.path, process.requestSerialize, process.responseDeserialize, md);
    return new ProcessorStream(call, timeoutMs);
  }

  /** Drops channels to processors no route names any more. */
  retain(urls: ReadonlySet<string>): void {
    for (const [url, client] of this.clients)
      if (!urls.has(url)) {
        client.close();
        this.clients.delete(url);
      }
  }

  close(): void {
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }
}

/**
 * The stream of one request. `ask` sends a message and waits for the next answer; `send` only sends (a
 * streamed body chunk); `next` waits for the next answer. Every wait has the timeout.
 */
export class ProcessorStream {
  private readonly answers: ProcessingResponse[] = [];
  private readonly waiting: { resolve(r: ProcessingResponse): void; reject(e: ExtProcFailure): void }[] = [];
  private failure: ExtProcFailure | undefined;
  private closed = false;
  private ended = false;

  constructor(
    private readonly call: grpc.ClientDuplexStream<ProcessingRequest, ProcessingResponse>,
    private readonly timeoutMs: number,
  ) {
    call.on('data', (r: ProcessingResponse) => {
      const w = this.waiting.shift();
      if (w) w.resolve(r);
      else this.answers.push(r);
    });
    call.on('error', (err: grpc.ServiceError) =>
      this.fail(`the processor failed the call (${grpc.status[err.code] ?? err.code})`),
    );
    call.on('end', () => this.fail('the processor closed the stream'));
  }

  send(m: ProcessingRequest): void {
    if (this.failure) return;
    this.call.write(m);
  }

  ask(m: ProcessingRequest): Promise<ProcessingResponse> {
    this.send(m);
    return this.next();
  }

  next(): Promise<ProcessingResponse> {
    const ready = this.answers.shift();
    if (ready) return Promise.resolve(ready);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new ExtProcFailure(`no answer within ${this.timeoutMs} ms`));
        this.close();
      }, this.timeoutMs);
      const entry = {
        resolve: (r: ProcessingResponse) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e: ExtProcFailure) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.waiting.push(entry);
    });
  }

  /** Half-closes the stream, waits (within the timeout) for the processor's next answer or its end, then ends it. */
  async finish(): Promise<void> {
    if (this.closed) return;
    if (!this.failure) this.halfClose();
    await this.next().catch(() => undefined);
    this.close();
  }

  /** Ends the stream: half-closes it, and cancels it if the processor keeps it open. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.failure ??= new ExtProcFailure('the stream was closed');
    this.halfClose();
    this.call.cancel();
  }

  private halfClose(): void {
    if (this.ended) return;
    this.ended = true;
    this.call.end();
  }

  private fail(why: string): void {
    if (this.closed) return;
    this.failure ??= new ExtProcFailure(why);
    for (const w of this.waiting.splice(0)) w.reject(this.failure);
  }
}
