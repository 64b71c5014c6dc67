// Calls to a streamable-HTTP target on the proxy's hot path, without the SDK client's per-call
// machinery (schema parsing of every message, a timer and abort listener per call, a WHATWG Response
// per fetch). The SDK client still owns the connection: initialize, the GET stream, notifications
// and server-to-client requests, which the caller gets back through `onOther`.
import { createParser } from 'eventsource-parser';
import { ErrorCode, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { request } from 'undici';
import { upstreamAgent } from './upstream-fetch.js';

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs: number;
  /** Progress of this call; the target sees a token of the proxy's own, the callback gets the rest. */
  onprogress?: (progress: Record<string, unknown>) => void;
}

/** One request to a target; resolves with the JSON-RPC result, rejects with McpError for JSON-RPC errors. */
export type UpstreamCall = (method: string, params: Record<string, unknown>, opts: CallOptions) => Promise<Record<string, unknown>>;

export interface HttpCallerOptions {
  url: URL;
  /** Read on every call: the SDK transport learns both during initialize. */
  sessionId(): string | undefined;
  protocolVersion(): string | undefined;
  /** Messages on a call's stream that are not its answer or its progress (notifications, target requests). */
  onOther(message: JSONRPCMessage): void;
  /** Tells the target a call was cancelled or timed out, as the SDK client would. */
  cancel(requestId: string, reason: string): void;
}

type Message = Record<string, unknown>;

export function httpCaller(opts: HttpCallerOptions): UpstreamCall {
  let next = 1;
  // One headers object per (session, version): both are fixed after initialize, so calls share it.
  let headers: Record<string, string> = {};
  let headersFor: string | undefined;
  const headersNow = (): Record<string, string> => {
    const sid = opts.sessionId();
    const version = opts.protocolVersion();
    const key = `${sid ?? ''} ${version ?? ''}`;
    if (key !== headersFor) {
      headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      if (sid) headers['mcp-session-id'] = sid;
      if (version) headers['mcp-protocol-version'] = version;
      headersFor = key;
    }
    return headers;
  };
  return async (method, params, call) => {
    // String ids cannot collide with the SDK client's numeric ones on the same target session.
    const id = `gw-${next++}`;
    const sent = call.onprogress ? { ...params, _meta: { ...(isObject(params._meta) ? params._meta : {}), progressToken: id } } : params;
    try {
      const res = await request(opts.url, {
        method: 'POST', headers: headersNow(), body: JSON.stringify({ jsonrpc: '2.0', id, method, params: sent }), dispatcher: upstreamAgent,
        signal: call.signal, headersTimeout: call.timeoutMs, bodyTimeout: call.timeoutMs,
      });
      if (res.statusCode < 200 || res.statusCode >= 300) {
        const text = await res.body.text().catch(() => '');
        throw new Error(`Streamable HTTP error: Error POSTing to endpoint (HTTP ${res.statusCode}): ${text.slice(0, 500)}`);
      }
      const type = mediaType(res.headers['content-type']);
      if (type === 'text/event-stream') return await readStream(res.body, id, call, opts.onOther);
      if (type !== 'application/json') {
        res.body.resume();
        throw new Error(`Streamable HTTP error: unexpected content type ${type || '(none)'} for ${method}`);
      }
      const data: unknown = await res.body.json();
      if (!Array.isArray(data)) {
        if (isObject(data) && data.id === id && !('method' in data)) return settle(data, method);
        if (isObject(data)) opts.onOther(data as JSONRPCMessage);
        return settle(undefined, method);
      }
      let answer: unknown;
      for (const m of data) {
        if (isObject(m) && m.id === id && !('method' in m)) answer = m;
        else if (isObject(m)) opts.onOther(m as JSONRPCMessage);
      }
      return settle(answer, method);
    } catch (err) {
      if (call.signal?.aborted) {
        opts.cancel(id, String(call.signal.reason ?? 'cancelled'));
        throw err;
      }
      const code = (err as { code?: unknown }).code;
      if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
        opts.cancel(id, 'request timed out');
        throw new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: call.timeoutMs });
      }
      throw err;
    }
  };
}

function mediaType(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] ?? '' : header ?? '';
  if (v === 'application/json' || v === 'text/event-stream') return v;
  return v.split(';')[0]?.trim().toLowerCase() ?? '';
}

/** The call's SSE stream: progress goes to the caller, its answer ends the call, the rest to onOther. */
function readStream(body: NodeJS.ReadableStream, id: string, call: CallOptions, onOther: (m: JSONRPCMessage) => void): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (f: () => void): void => {
      if (done) return;
      done = true;
      f();
    };
    const parser = createParser({
      onEvent: (ev) => {
        if (done || (ev.event !== undefined && ev.event !== 'message')) return;
        let m: unknown;
        try { m = JSON.parse(ev.data); } catch { return; }
        if (!isObject(m)) return;
        if (m.id === id && !('method' in m)) {
          finish(() => { try { resolve(settle(m, '')); } catch (err) { reject(err as Error); } });
          return;
        }
        const p = m.params;
        if (m.method === 'notifications/progress' && isObject(p) && p.progressToken === id) {
          const { progressToken: _token, ...progress } = p;
          call.onprogress?.(progress);
          return;
        }
        onOther(m as JSONRPCMessage);
      },
    });
    const decoder = new TextDecoder();
    body.on('data', (chunk: Buffer) => parser.feed(decoder.decode(chunk, { stream: true })));
    body.on('end', () => finish(() => reject(new Error('the target closed the stream before answering'))));
    body.on('error', (err) => finish(() => reject(err)));
  });
}

function settle(answer: unknown, method: string): Record<string, unknown> {
  if (!isObject(answer)) throw new Error(`the target sent no answer${method ? ` to ${method}` : ''}`);
  if (isObject(answer.error)) {
    const e = answer.error;
    throw McpError.fromError(typeof e.code === 'number' ? e.code : ErrorCode.InternalError, String(e.message ?? ''), e.data);
  }
  if (!isObject(answer.result)) throw new Error('the target answered with a result that is not an object');
  return answer.result;
}

function isObject(v: unknown): v is Message {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
