// One POST to a streamable-HTTP target through undici's dispatch API, for the call hot path: a JSON
// answer is collected into one buffer (no Readable stream, async resource or body mixin per call, which
// undici's request() costs and the profile showed); any other answer (an SSE stream) gets a Readable
// that the SSE reader consumes as it would undici's. Errors are undici's own (timeouts keep their codes).
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { CallCancel } from './call-cancel.js';

/** What a call gets back: status, the content type, and the body buffered (JSON) or as a stream. */
export interface DispatchedAnswer {
  statusCode: number;
  contentType: string;
  body: AnswerBody;
  /** The target's `mcp-session-id` header, read only when the request asked for it (initialize). */
  sessionId: string | undefined;
}

export interface AnswerBody {
  /** The whole body when it was read into memory (JSON answers and errors). */
  readonly buffered?: Buffer;
  /** Drops the rest of the body. */
  resume(): void;
  dump(): Promise<void>;
  text(): Promise<string>;
  json(): Promise<unknown>;
  /** The body as a stream (SSE answers); buffered bodies are replayed from memory. */
  stream(): NodeJS.ReadableStream;
}

export interface DispatchRequest {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  headersTimeout: number;
  bodyTimeout: number;
  cancel: CallCancel | undefined;
  /** Read the answer's `mcp-session-id` header too (initialize: the target names its session). */
  sessionHeader?: boolean;
}

/** Sends the POST; resolves once the answer's headers are in, its body buffered when it is JSON or an error. */
export function dispatchPost(dispatcher: Dispatcher, r: DispatchRequest): Promise<DispatchedAnswer> {
  return new Promise((resolve, reject) => {
    const handler = new PostHandler(resolve, reject, r.cancel, r.sessionHeader === true);
    dispatcher.dispatch(
      {
        origin: r.origin,
        path: r.path,
        method: 'POST',
        headers: r.headers,
        body: r.body,
        headersTimeout: r.headersTimeout,
        bodyTimeout: r.bodyTimeout,
      },
      handler,
    );
  });
}

const contentTypeBytes = 'content-type';

/** undici's (legacy, unwrapped) handler shape: one object per call, no closures. */
class PostHandler implements Dispatcher.DispatchHandler {
  private abort: ((err?: Error) => void) | undefined;
  private reason: Error | undefined;
  private answer: DispatchedAnswer | undefined;
  private chunks: Buffer[] | undefined;
  private stream: Readable | undefined;
  private settled = false;

  constructor(
    private readonly resolve: (a: DispatchedAnswer) => void,
    private readonly reject: (err: unknown) => void,
    private readonly cancel: CallCancel | undefined,
    private readonly sessionHeader: boolean,
  ) {
    if (!cancel) return;
    if (cancel.aborted) this.reason = abortError(cancel.reason);
    else cancel.onAbort((why) => this.cancelled(why));
  }

  private cancelled(why: unknown): void {
    this.reason = abortError(why);
    if (this.stream) this.stream.destroy(this.reason);
    this.abort?.(this.reason);
  }

  onConnect(abort: (err?: Error) => void): void {
    if (this.reason) abort(this.reason);
    else this.abort = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (statusCode < 200) return true;
    const contentType = headerOf(rawHeaders, contentTypeBytes);
    const sessionId = this.sessionHeader ? headerOf(rawHeaders, 'mcp-session-id') || undefined : undefined;
    // JSON answers and errors are read whole anyway; other 2xx bodies (SSE, or an unexpected type the caller drains) stream.
    const buffered = statusCode >= 300 || mediaTypeOf(contentType) === 'application/json';
    if (buffered) {
      this.chunks = [];
      this.answer = { statusCode, contentType, body: emptyBody, sessionId };
      return true;
    }
    this.stream = new Readable({
      read: () => resume(),
      destroy: (err, cb) => {
        if (!this.settled) this.abort?.(err ?? new Error('the answer stream was closed'));
        cb(err);
      },
    });
    this.stream.once('close', () => this.dropSignal());
    this.resolve({ statusCode, contentType, body: streamBody(this.stream), sessionId });
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.stream) return this.stream.push(chunk);
    this.chunks?.push(chunk);
    return true;
  }

  onComplete(): void {
    this.settled = true;
    if (this.stream) {
      this.stream.push(null);
      return;
    }
    this.dropSignal();
    const answer = this.answer;
    if (!answer) return this.reject(new Error('the target closed the connection without an answer'));
    const chunks = this.chunks ?? [];
    answer.body = new BufferedBody(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    this.resolve(answer);
  }

  onError(err: Error): void {
    this.settled = true;
    this.dropSignal();
    const error = this.reason ?? err;
    if (this.stream) this.stream.destroy(error);
    else this.reject(error);
  }

  private dropSignal(): void {
    this.cancel?.onAbort(undefined);
  }
}

function abortError(r: unknown): Error {
  return r instanceof Error ? r : Object.assign(new Error('This operation was aborted'), { name: 'AbortError' });
}

/** A header's value from undici's raw list (name, value, name, value…); '' when absent. */
function headerOf(raw: Buffer[], name: string): string {
  for (let i = 0; i < raw.length; i += 2) {
    const k = raw[i];
    if (k && k.length === name.length && k.toString('latin1').toLowerCase() === name)
      return raw[i + 1]?.toString('latin1') ?? '';
  }
  return '';
}

export function mediaTypeOf(v: string): string {
  if (v === 'application/json' || v === 'text/event-stream') return v;
  return v.split(';')[0]?.trim().toLowerCase() ?? '';
}

/** A body read whole; a class, so a call's answer costs one object and no closures. */
class BufferedBody implements AnswerBody {
  constructor(readonly buffered: Buffer) {}
  resume(): void {}
  dump(): Promise<void> {
    return Promise.resolve();
  }
  text(): Promise<string> {
    return Promise.resolve(this.buffered.toString('utf8'));
  }
  json(): Promise<unknown> {
    return new Promise((resolve) => resolve(JSON.parse(this.buffered.toString('utf8')) as unknown));
  }
  stream(): NodeJS.ReadableStream {
    return Readable.from([this.buffered]);
  }
}

const emptyBody = new BufferedBody(Buffer.alloc(0));

function streamBody(stream: Readable): AnswerBody {
  const text = async (): Promise<string> => {
    const parts: Buffer[] = [];
    for await (const c of stream) parts.push(c as Buffer);
    return Buffer.concat(parts).toString('utf8');
  };
  return {
    resume: () => void stream.resume(),
    dump: async () => {
      stream.resume();
      await new Promise<void>((resolve) => stream.once('close', resolve).once('end', resolve));
    },
    text,
    json: async () => JSON.parse(await text()) as unknown,
    stream: () => stream,
  };
}
