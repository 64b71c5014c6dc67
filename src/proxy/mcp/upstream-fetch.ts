// A leaner `fetch` for the SDK's HTTP client transports: undici's request API on a shared keep-alive
// pool, wrapped into a standard Response. JSON bodies are read whole (the common case); streams
// (SSE) stay streams. Saves most of WHATWG fetch's per-call cost on the proxy's hot path.
import { Readable } from 'node:stream';
import { Agent, request, type Dispatcher } from 'undici';
import type { RetryPlan } from '../policy/traffic-policy.js';
import { sendWithRetry, type RetryOptions } from './upstream-retry.js';

/** Connections per target origin in the shared request pool. */
export const TARGET_CONNECTIONS = 256;
/** Requests that may wait for one of them (ProxyLimits.targetQueue); past this a target is saturated. */
let targetQueue = 1024;

/** Sets the queue bound of every target pool in this process (the runtime does, from its limits). */
export function configureTargetQueue(n: number): void {
  targetQueue = n;
}

/** Keep-alive pool for requests to HTTP targets, shared by every session: a connection is held per request. */
export const upstreamAgent = new Agent({ keepAliveTimeout: 60_000, connections: TARGET_CONNECTIONS });

/** A target whose pool is full and whose queue is too: the caller answers 503 instead of waiting without bound. */
/** Part of the saturation message, so the error is recognised after the SDK rewraps it as text. */
export const SATURATED_MARK = 'is saturated:';

export class TargetSaturated extends Error {
  readonly code = 'GW_TARGET_SATURATED';
}

// Requests in flight or queued per origin on `upstreamAgent` (undici keeps no bound on its queue).
const pending = new Map<string, number>();

/** Requests in flight or queued to `origin` now (for tests and diagnostics). */
export function targetRequestsPending(origin: string): number {
  return pending.get(origin) ?? 0;
}

/** Counts one request against its origin's pool and queue; the returned function ends it (once). */
export function admitTargetRequest(origin: string, limit = TARGET_CONNECTIONS + targetQueue): () => void {
  const n = pending.get(origin) ?? 0;
  if (n >= limit)
    throw new TargetSaturated(
      `target ${origin} ${SATURATED_MARK} ${TARGET_CONNECTIONS} requests in flight and ${limit - TARGET_CONNECTIONS} waiting`,
    );
  pending.set(origin, n + 1);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    const left = (pending.get(origin) ?? 1) - 1;
    if (left > 0) pending.set(origin, left);
    else pending.delete(origin);
  };
}

/**
 * Connections for the targets' long-lived GET streams, one per open stream and never from the request
 * pool: a session's stream would otherwise pin a pooled connection for the session's life, and 256 idle
 * sessions would leave every other session's requests queued. Their number is bounded by the session caps.
 */
export const streamAgent = new Agent({ keepAliveTimeout: 10_000 });

type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  if (!headers) return {};
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  if (Array.isArray(headers)) return Object.fromEntries(headers);
  return headers as Record<string, string>;
}

export const upstreamFetch: FetchLike = (input, init) => fetchWithRetry(input, init, { plan: undefined });

/** `upstreamFetch` with the route's `traffic.retry` (initialize and the SDK's other requests); the caller's signal bounds it. */
export function retryingFetch(
  plan: RetryPlan | undefined,
  onRetry?: (tried: number, why: string) => void,
  /** A TLS target's dispatcher (target-tls.ts), for its requests and its streams; unset: the shared pools. */
  dispatcher?: () => Dispatcher,
): FetchLike {
  if (!plan && !dispatcher) return upstreamFetch;
  return (input, init) => fetchWithRetry(input, init, { plan, ...(onRetry ? { onRetry } : {}) }, dispatcher);
}

/** The JSON-RPC method of a request body, '' for anything else (batches, notifications are never read-only). */
function methodOf(body: string | undefined): string {
  try {
    const m: unknown = body ? JSON.parse(body) : undefined;
    return m !== null && typeof m === 'object' && 'id' in m && 'method' in m && typeof m.method === 'string'
      ? m.method
      : '';
  } catch {
    return '';
  }
}

async function fetchWithRetry(
  input: string | URL,
  init: RequestInit = {},
  retry: Pick<RetryOptions, 'plan' | 'onRetry'>,
  dispatcher?: () => Dispatcher,
): Promise<Response> {
  const body = init.body;
  if (body !== undefined && body !== null && typeof body !== 'string') return fetch(input, init);
  const method = init.method ?? 'GET';
  // GET streams have their own connections (streamAgent); every other request counts against the pool.
  const release = method === 'GET' ? () => undefined : admitTargetRequest(new URL(input).origin);
  try {
    return await send(input, init, method, body, retry, release, dispatcher);
  } catch (err) {
    release();
    throw err;
  }
}

async function send(
  input: string | URL,
  init: RequestInit,
  method: string,
  body: string | undefined | null,
  retry: Pick<RetryOptions, 'plan' | 'onRetry'>,
  release: () => void,
  dispatcher: (() => Dispatcher) | undefined,
): Promise<Response> {
  const res = await sendWithRetry(
    () =>
      request(input, {
        method: method as 'GET',
        headers: headerRecord(init.headers),
        body: body ?? null,
        dispatcher: dispatcher?.() ?? (method === 'GET' ? streamAgent : upstreamAgent),
        ...(init.signal ? { signal: init.signal } : {}),
      }),
    {
      ...retry,
      timeoutMs: undefined,
      signal: init.signal ?? undefined,
      // GET opens the target's stream and DELETE ends a session: both may be repeated.
      method: method === 'POST' ? methodOf(body ?? undefined) : 'ping',
    },
  );
  const headers = new Headers();
  for (const [k, v] of Object.entries(res.headers)) {
    if (Array.isArray(v)) for (const item of v) headers.append(k, item);
    else if (v !== undefined) headers.set(k, v);
  }
  const status = res.statusCode;
  const noBody = status === 204 || status === 304 || init.method === 'HEAD';
  if (noBody) {
    res.body.resume();
    release();
    return new Response(null, { status, headers });
  }
  if ((headers.get('content-type') ?? '').includes('text/event-stream')) {
    // A call's event stream holds its connection until it ends.
    res.body.once('close', release);
    return new Response(Readable.toWeb(res.body) as ReadableStream<Uint8Array>, { status, headers });
  }
  const whole = await res.body.arrayBuffer();
  release();
  return new Response(whole, { status, headers });
}
