// Calls to a streamable-HTTP target on the proxy's hot path: one POST through undici's dispatch API, no
// schema parsing of every message, no timer or abort listener per call, no WHATWG Response per fetch.
// The connection around it (initialize, the GET stream, notifications and the target's own requests,
// which come back through `onOther`) is http-target.ts.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { InternalError } from './jsonrpc.js';
import { modernVersion } from './modern.js';
import { RpcError, requestTimedOut } from './rpc-error.js';
import type { Dispatcher } from 'undici';
import { type CallCancel, detached } from './call-cancel.js';
import { dispatchPost, mediaTypeOf, type DispatchedAnswer } from './upstream-dispatch.js';
import type { RetryPlan } from '../policy/traffic-policy.js';
import { admitTargetRequest, upstreamAgent } from './upstream-fetch.js';
import { sendWithRetry } from './upstream-retry.js';
import { readCallStream } from './upstream-sse.js';

export interface CallOptions {
  /** The call's cancellation; an AbortSignal of it is made only where one is needed. */
  cancel?: CallCancel;
  timeoutMs: number;
  /** Progress of this call; the target sees a token of the proxy's own, the callback gets the rest. */
  onprogress?: (progress: Record<string, unknown>) => void;
  /** Headers of this call only, after the session's (the caller's trace context, `traceparent`). */
  headers?: Record<string, string>;
  /** Told the call's JSON-RPC id at the target (a multi round-trip bridge resumes the call by it). */
  onId?: (id: string) => void;
}

/** One request to a target; resolves with the JSON-RPC result, rejects with RpcError for JSON-RPC errors. */
export type UpstreamCall = (
  method: string,
  params: Record<string, unknown>,
  opts: CallOptions,
) => Promise<Record<string, unknown>>;

export interface HttpCallerOptions {
  url: URL;
  /** Read on every call: both are learnt during initialize. */
  sessionId(): string | undefined;
  protocolVersion(): string | undefined;
  /** The session id the target named in its answer to initialize. */
  onSessionId?(id: string): void;
  /** Messages on a call's stream that are not its answer or its progress (notifications, target requests), with the id of the SSE event that carried them. */
  onOther(message: JSONRPCMessage, eventId?: string): void;
  /** Tells the target a call was cancelled or timed out (notifications/cancelled). */
  cancel(requestId: string, reason: string): void;
  /** The route's `traffic.retry`: calls the target did not get, or answered with one of its codes, are sent again within the call's timeout. */
  retry?: RetryPlan;
  onRetry?: (tried: number, why: string) => void;
  /** Sent on every call: the edge's `backend.auth` credential (backend-auth.ts). */
  headers?: Record<string, string>;
  /** The target's name, for TargetSessionGone. */
  target: string;
  /** A TLS target's dispatcher (target-tls.ts); unset: the shared request pool. */
  dispatcher?: () => Dispatcher;
}

type Message = Record<string, unknown>;

/** The target answered 404 to a request naming its session: it no longer knows the session (restarted, or ended). */
export class TargetSessionGone extends Error {
  constructor(readonly target: string) {
    super(`target ${target} does not know the session (HTTP 404)`);
  }
}

export function httpCaller(opts: HttpCallerOptions): UpstreamCall {
  let next = 1;
  const headersNow = sessionHeaders(opts);
  const origin = opts.url.origin;
  const path = `${opts.url.pathname}${opts.url.search}`;
  return async (method, params, call) => {
    // String ids cannot collide with the numeric ones of an SDK client on the same target session.
    const id = `gw-${next++}`;
    call.onId?.(id);
    const sent = call.onprogress
      ? { ...params, _meta: { ...(isObject(params._meta) ? params._meta : {}), progressToken: id } }
      : params;
    // Past the pool and its bounded queue the call fails at once (TargetSaturated) instead of waiting.
    const release = admitTargetRequest(origin);
    try {
      const body = JSON.stringify({ jsonrpc: '2.0', id, method, params: sent });
      const headers = call.headers ? { ...headersNow(), ...call.headers } : headersNow();
      const send = (headersTimeout: number | undefined): Promise<DispatchedAnswer> =>
        dispatchPost(opts.dispatcher?.() ?? upstreamAgent, {
          origin,
          path,
          headers,
          body,
          cancel: call.cancel,
          headersTimeout: headersTimeout ?? call.timeoutMs,
          bodyTimeout: call.timeoutMs,
          sessionHeader: method === 'initialize',
        });
      // Without a retry plan the one try is the answer (sendWithRetry would return it as it is).
      const res = await (opts.retry
        ? sendWithRetry(send, {
            plan: opts.retry,
            method,
            timeoutMs: call.timeoutMs,
            signal: call.cancel?.signal,
            ...(opts.onRetry ? { onRetry: opts.onRetry } : {}),
          })
        : send(undefined));
      if (res.sessionId) opts.onSessionId?.(res.sessionId);
      // The common answer, a JSON body already read whole, is settled without another promise.
      const json = res.statusCode >= 200 && res.statusCode < 300 ? res.body.buffered : undefined;
      if (json && mediaTypeOf(res.contentType) === 'application/json')
        return settle(jsonAnswer(json, id, opts), method);
      return await answerOf(res, { id, method, call, opts, headersNow });
    } catch (err) {
      throw callFailure(err, id, call, opts);
    } finally {
      release();
    }
  };
}

/** The headers of every call on the target session; one object per (session, version), both fixed after initialize. */
function sessionHeaders(opts: HttpCallerOptions): () => Record<string, string> {
  let headers: Record<string, string> = {};
  let headersFor: string | undefined;
  return () => {
    const sid = opts.sessionId();
    const version = opts.protocolVersion();
    const key = `${sid ?? ''} ${version ?? ''}`;
    if (key !== headersFor) {
      headers = { ...opts.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      if (sid) headers['mcp-session-id'] = sid;
      if (version) headers['mcp-protocol-version'] = version;
      headersFor = key;
    }
    return headers;
  };
}

interface PendingCall {
  id: string;
  method: string;
  call: CallOptions;
  opts: HttpCallerOptions;
  headersNow: () => Record<string, string>;
}

/** The call's answer from a JSON body or an SSE stream; other messages on the way go to `onOther`. */
async function answerOf(res: DispatchedAnswer, p: PendingCall): Promise<Record<string, unknown>> {
  const { id, method, call, opts } = p;
  if (res.statusCode === 404 && opts.sessionId()) {
    res.body.resume();
    throw new TargetSessionGone(opts.target);
  }
  if (res.statusCode < 200 || res.statusCode >= 300) {
    const text = await res.body.text().catch(() => '');
    // A 2026 target answers its protocol errors with 400 or 404 and the JSON-RPC error: that error is the answer.
    const answer = opts.protocolVersion() === modernVersion ? errorAnswer(text, id) : undefined;
    if (answer) return settle(answer, method);
    throw postRefused(res.statusCode, text);
  }
  const type = mediaTypeOf(res.contentType);
  if (type === 'text/event-stream') {
    const answer = await readCallStream(res.body.stream(), {
      url: opts.url,
      id,
      headers: p.headersNow,
      signal: call.cancel?.signal,
      timeoutMs: call.timeoutMs,
      onprogress: call.onprogress,
      onOther: opts.onOther,
      ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
    });
    return settle(answer, method);
  }
  if (type !== 'application/json') {
    res.body.resume();
    throw new Error(`Streamable HTTP error: unexpected content type ${type || '(none)'} for ${method}`);
  }
  return settle(jsonAnswer(await res.body.text(), id, opts), method);
}

/**
 * Picks up a call another reader let go of (or lost): its stream resumed with GET + Last-Event-ID `from`,
 * read until the call's answer; the target's other messages on it go to `onOther` as on a call's own stream.
 */
export function httpResumer(
  opts: HttpCallerOptions,
): (id: string, from: string, call: CallOptions) => Promise<Record<string, unknown>> {
  const headersNow = sessionHeaders(opts);
  return async (id, from, call) => {
    const answer = await readCallStream(
      undefined,
      {
        url: opts.url,
        id,
        headers: headersNow,
        signal: call.cancel?.signal,
        timeoutMs: call.timeoutMs,
        onprogress: call.onprogress,
        onOther: opts.onOther,
        ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
      },
      from,
    );
    return settle(answer, '');
  };
}

/** A POST the target answered with a non-2xx status (the wording the SDK's client transport uses). */
export function postRefused(status: number, body: string): Error & { status: number } {
  const text = `Streamable HTTP error: Error POSTing to endpoint (HTTP ${status}): ${body.slice(0, 500)}`;
  // The status rides along for passive health (target-health.ts), which counts only 5xx and 429 as failures.
  return Object.assign(new Error(text), { status });
}

/** The JSON-RPC error answering call `id` in a refusal's body, if that is what the body holds. */
function errorAnswer(text: string, id: string): Record<string, unknown> | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isObject(data) && data.id === id && isObject(data.error) ? data : undefined;
}

/** The call's answer in a JSON body (one message or a batch); other messages in it go to `onOther`. */
function jsonAnswer(text: string | Buffer, id: string, opts: HttpCallerOptions): unknown {
  const data: unknown = JSON.parse(typeof text === 'string' ? text : text.toString('utf8'));
  if (!Array.isArray(data)) {
    if (isObject(data) && data.id === id && !('method' in data)) return data;
    if (isObject(data)) opts.onOther(data as JSONRPCMessage);
    return undefined;
  }
  let answer: unknown;
  for (const m of data) {
    if (isObject(m) && m.id === id && !('method' in m)) answer = m;
    else if (isObject(m)) opts.onOther(m as JSONRPCMessage);
  }
  return answer;
}

/** What a failed call throws; the target is told about calls cancelled or timed out. */
function callFailure(err: unknown, id: string, call: CallOptions, opts: HttpCallerOptions): unknown {
  if (call.cancel?.aborted) {
    // A detached call goes on at the target: only this reader of its stream let go.
    if (call.cancel.reason !== detached) opts.cancel(id, String(call.cancel.reason ?? 'cancelled'));
    return err;
  }
  const code = (err as { code?: unknown }).code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    opts.cancel(id, 'request timed out');
    return requestTimedOut(call.timeoutMs);
  }
  return err;
}

function settle(answer: unknown, method: string): Record<string, unknown> {
  if (!isObject(answer)) throw new Error(`the target sent no answer${method ? ` to ${method}` : ''}`);
  if (isObject(answer.error)) {
    const e = answer.error;
    throw new RpcError(typeof e.code === 'number' ? e.code : InternalError, String(e.message ?? ''), e.data);
  }
  if (!isObject(answer.result)) throw new Error('the target answered with a result that is not an object');
  return answer.result;
}

function isObject(v: unknown): v is Message {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
