// The pools for requests to MCP targets (a shared keep-alive pool with a bounded queue per origin, and
// connections of their own for long-lived GET streams), and a `fetch` over undici's request API for the
// SDK's legacy SSE transport to a TLS target.
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { Agent, request } from '../http/undici.js';

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
/** Part of the saturation message, so the error is recognised after an SDK client rewraps it as text. */
export const SATURATED_MARK = 'is saturated:';

export class TargetSaturated extends Error {
  readonly code = 'GW_TARGET_SATURATED';
}

/** Whether `err` (or an error it wraps) is a target pool that was full with its queue full too. */
export function isSaturated(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if (e instanceof TargetSaturated || e.message.includes(SATURATED_MARK)) return true;
  return false;
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

export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  if (!headers) return {};
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  if (Array.isArray(headers)) return Object.fromEntries(headers);
  return headers as Record<string, string>;
}

/** A `fetch` for the SDK's legacy SSE transport to a TLS target: its requests and its stream through the target's dispatcher. */
export function dialFetch(dispatcher: () => Dispatcher): FetchLike {
  return (input, init) => sendVia(input, init, dispatcher);
}

async function sendVia(input: string | URL, init: RequestInit = {}, dispatcher: () => Dispatcher): Promise<Response> {
  const body = init.body;
  if (body !== undefined && body !== null && typeof body !== 'string') return fetch(input, init);
  const method = init.method ?? 'GET';
  // GET streams have their own connections; every other request counts against the pool.
  const release = method === 'GET' ? () => undefined : admitTargetRequest(new URL(input).origin);
  try {
    const res = await request(input, {
      method: method as 'GET',
      headers: headerRecord(init.headers),
      body: body ?? null,
      dispatcher: dispatcher(),
      ...(init.signal ? { signal: init.signal } : {}),
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (Array.isArray(v)) for (const item of v) headers.append(k, item);
      else if (v !== undefined) headers.set(k, v);
    }
    const status = res.statusCode;
    if (status === 204 || status === 304 || method === 'HEAD') {
      res.body.resume();
      release();
      return new Response(null, { status, headers });
    }
    if ((headers.get('content-type') ?? '').includes('text/event-stream')) {
      // An event stream holds its connection until it ends.
      res.body.once('close', release);
      return new Response(Readable.toWeb(res.body) as ReadableStream<Uint8Array>, { status, headers });
    }
    const whole = await res.body.arrayBuffer();
    release();
    return new Response(whole, { status, headers });
  } catch (err) {
    release();
    throw err;
  }
}
