// The response half of `traffic.extProc` on MCP and LLM routes, whose answers the proxy writes itself (the MCP
// endpoint, the LLM forwarder) rather than relays. Their writes to the client's ServerResponse are held: the
// status and headers, once given, become an answer like a backend's and go through the same phases
// (ext-proc-answer.ts); what the processor lets through is what the client gets. The endpoint keeps the same
// response object (telemetry and error formats are keyed on it); only its writing methods are redirected.
import type { IncomingHttpHeaders, OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import type { UpstreamResponse } from '../http/h2-upstream.js';
import { respondsFor } from '../http/http-error.js';
import type { AnswerHook } from './ext-proc-answer.js';

type Headers = UpstreamResponse['headers'];
type Writer = (...args: unknown[]) => unknown;

/**
 * From now on what the endpoint writes to `res` reaches the client through `hook`. Returns at once; the
 * processed answer is written as it comes back.
 */
export function processAnswersOf(res: ServerResponse, hook: AnswerHook): void {
  const own = {
    writeHead: res.writeHead.bind(res) as Writer,
    write: res.write.bind(res) as Writer,
    end: res.end.bind(res) as Writer,
    flushHeaders: res.flushHeaders.bind(res),
    headersSent: inherited(res, 'headersSent'),
  };
  const body = new PassThrough();
  // The processing may drop the endpoint's answer (an immediate response, a failure): later writes go nowhere.
  body.on('error', () => undefined);
  body.on('drain', () => res.emit('drain'));
  // A client that went away takes the held answer with it: the endpoint's later writes go nowhere.
  res.once('close', () => body.destroy());
  let started = false;
  const start = (code: number, extra: unknown): void => {
    if (started) return;
    started = true;
    const headers = headersOf(res, extra);
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    const up: UpstreamResponse = { statusCode: code, headers, body: Object.assign(body, { dump }), trailers: {} };
    void hook(up, direct(res, own)).then(
      (out) => out && relay(res, own, out),
      () => (own.headersSent() ? res.destroy() : undefined),
    );
  };
  Object.defineProperty(res, 'headersSent', { configurable: true, get: () => started || own.headersSent() });
  res.writeHead = ((code: number, a?: unknown, b?: unknown) => {
    start(code, typeof a === 'string' ? b : a);
    return res;
  }) as ServerResponse['writeHead'];
  res.flushHeaders = () => start(res.statusCode, undefined);
  res.write = ((...args: unknown[]) => {
    start(res.statusCode, undefined);
    if (body.destroyed) return true;
    return (body.write as Writer)(...args) as boolean;
  }) as ServerResponse['write'];
  res.end = ((...args: unknown[]) => {
    start(res.statusCode, undefined);
    if (!body.destroyed && !body.writableEnded) (body.end as Writer)(...args);
    return res;
  }) as ServerResponse['end'];
}

/** The getter `name` of `res`'s prototype chain, read on `res` (its own property will shadow it). */
function inherited(res: ServerResponse, name: string): () => boolean {
  for (let o: object | null = Object.getPrototypeOf(res) as object; o; o = Object.getPrototypeOf(o) as object | null) {
    const get = Object.getOwnPropertyDescriptor(o, name)?.get;
    if (get) return () => get.call(res) as boolean;
  }
  throw new Error(`a ServerResponse without ${name}`);
}

async function dump(this: PassThrough): Promise<void> {
  this.resume();
  await new Promise((resolve) => this.once('end', resolve).once('close', resolve));
}

/** The endpoint's headers: those set on `res` and those given to writeHead (an object or a flat name, value list). */
function headersOf(res: ServerResponse, extra: unknown): Headers {
  const out: Headers = {};
  const put = (name: string, v: OutgoingHttpHeader | undefined): void => {
    if (v === undefined) return;
    out[name.toLowerCase()] = Array.isArray(v) ? v.map(String) : String(v);
  };
  for (const [name, v] of Object.entries(res.getHeaders())) put(name, v);
  if (Array.isArray(extra)) {
    const flat = (extra as unknown[]).flat() as string[];
    for (let i = 0; i + 1 < flat.length; i += 2) put(flat[i] ?? '', flat[i + 1]);
  } else if (extra && typeof extra === 'object')
    for (const [name, v] of Object.entries(extra as OutgoingHttpHeaders)) put(name, v);
  return out;
}

/** The client's response as the processing writes it: the methods the endpoint no longer reaches. */
function direct(
  res: ServerResponse,
  own: { writeHead: Writer; end: Writer; write: Writer; flushHeaders: () => void; headersSent: () => boolean },
): ServerResponse {
  const proxy: ServerResponse = new Proxy(res, {
    get(target, p) {
      if (p === 'headersSent') return own.headersSent();
      if (p === 'writeHead' || p === 'end')
        return (...args: unknown[]) => {
          own[p](...args);
          return proxy;
        };
      if (p === 'write') return own.write;
      if (p === 'flushHeaders') return own.flushHeaders;
      const v: unknown = Reflect.get(target, p, target);
      return typeof v === 'function' ? (v as Writer).bind(target) : v;
    },
  });
  // An error the processing answers is the exchange's (access log, the LLM client's error format).
  respondsFor(proxy, res);
  return proxy;
}

/** The processed answer to the client; an SSE stream's headers go at once, not with its first event. */
function relay(
  res: ServerResponse,
  own: { writeHead: Writer; write: Writer; end: Writer; flushHeaders: () => void },
  out: UpstreamResponse,
): void {
  const headers: IncomingHttpHeaders = {};
  for (const [k, v] of Object.entries(out.headers)) if (v !== undefined) headers[k] = v;
  own.writeHead(out.statusCode, headers);
  if (String(out.headers['content-type'] ?? '').startsWith('text/event-stream')) own.flushHeaders();
  const src: Readable = out.body;
  src.on('data', (c: Buffer) => {
    if (!(own.write(c) as boolean)) src.pause();
  });
  res.on('drain', () => src.resume());
  src.once('end', () => own.end());
  src.once('error', () => res.destroy());
  res.once('close', () => src.destroy());
}
