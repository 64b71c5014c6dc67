// A call's SSE stream from a streamable-HTTP target, resumed with GET + Last-Event-ID when the target
// closes or loses it before answering (MCP "Resumability and Redelivery"). Only streams whose events
// carry ids can be resumed: without one the target has nothing to replay from.
import { setTimeout as sleep } from 'node:timers/promises';
import { createParser } from 'eventsource-parser';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Dispatcher } from 'undici';
import { request } from '../http/undici.js';
import { upstreamAgent } from './upstream-fetch.js';

type Message = Record<string, unknown>;

export interface CallStream {
  url: URL;
  /** The JSON-RPC id of the call: its answer ends the stream. */
  id: string;
  headers(): Record<string, string>;
  signal: AbortSignal | undefined;
  timeoutMs: number;
  onprogress: ((progress: Record<string, unknown>) => void) | undefined;
  /** `eventId`: the id of the event that carried the message, or of the last event before it with one. */
  onOther(message: JSONRPCMessage, eventId: string | undefined): void;
  /** A TLS target's dispatcher; unset: the shared request pool. */
  dispatcher?: () => Dispatcher;
}

/** Consecutive resume attempts that bring no event before the call fails. */
export const maxResumeAttempts = 3;
const defaultRetryMs = 100;
const maxRetryMs = 5_000;

/**
 * Reads the call's stream until its answer, resuming it as long as the target gave event ids. Without a
 * `first` stream the call is picked up where another reader left it: a GET with Last-Event-ID `from`.
 */
export async function readCallStream(
  first: NodeJS.ReadableStream | undefined,
  call: CallStream,
  from?: string,
): Promise<Message> {
  const cursor: Cursor = { lastEventId: from, retryMs: undefined, events: 0 };
  let body = first;
  let failures = 0;
  for (;;) {
    const before = cursor.events;
    const outcome = body
      ? await readEvents(body, call, cursor)
      : ({ cut: new Error('the call is resumed') } as { answer?: never; cut: Error });
    if (outcome.answer) {
      // A replayed GET stream may stay open after the answer; nothing else on it is this call's.
      if (body !== first) (body as NodeJS.ReadableStream & { destroy?(): void }).destroy?.();
      return outcome.answer;
    }
    if (cursor.events > before) failures = 0;
    if (cursor.lastEventId === undefined || call.signal?.aborted) throw outcome.cut;
    let next: NodeJS.ReadableStream | undefined;
    while (!next) {
      if (++failures > maxResumeAttempts)
        throw new Error(
          `${outcome.cut.message}; ${maxResumeAttempts} attempts to resume it from event ${cursor.lastEventId} failed`,
        );
      // A call picked up from another reader is asked for at once; a cut stream after the target's retry delay.
      if (body || failures > 1)
        await sleep(
          Math.min(maxRetryMs, (cursor.retryMs ?? defaultRetryMs) * 2 ** (failures - 1)),
          undefined,
          call.signal ? { signal: call.signal } : {},
        );
      next = await resume(call, cursor.lastEventId);
    }
    body = next;
  }
}

interface Cursor {
  lastEventId: string | undefined;
  retryMs: number | undefined;
  events: number;
}

/** GET with Last-Event-ID; undefined when the attempt failed in a way worth retrying. */
async function resume(call: CallStream, lastEventId: string): Promise<NodeJS.ReadableStream | undefined> {
  const { 'content-type': _type, ...base } = call.headers();
  let res;
  try {
    res = await request(call.url, {
      method: 'GET',
      headers: { ...base, accept: 'text/event-stream', 'last-event-id': lastEventId },
      dispatcher: call.dispatcher?.() ?? upstreamAgent,
      signal: call.signal,
      headersTimeout: call.timeoutMs,
      bodyTimeout: call.timeoutMs,
    });
  } catch (err) {
    if (call.signal?.aborted) throw err;
    return undefined; // connection refused or reset: the target may be restarting
  }
  const type = String(res.headers['content-type'] ?? '')
    .split(';')[0]
    ?.trim()
    .toLowerCase();
  if (res.statusCode >= 200 && res.statusCode < 300 && type === 'text/event-stream') return res.body;
  res.body.resume();
  // 409: the target still holds the stream's previous connection (a reader that let go moments ago).
  if (res.statusCode >= 500 || res.statusCode === 409) return undefined;
  throw new Error(
    `the target closed the stream before answering and refused to resume it from event ${lastEventId} (HTTP ${res.statusCode})`,
  );
}

/** One stream's events: progress to the caller, the answer ends it, the rest to onOther. */
function readEvents(
  body: NodeJS.ReadableStream,
  call: CallStream,
  cursor: Cursor,
): Promise<{ answer: Message; cut?: never } | { answer?: never; cut: Error }> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (outcome: { answer: Message } | { cut: Error }): void => {
      if (done) return;
      done = true;
      body.removeAllListeners('data');
      if ('answer' in outcome) body.resume();
      resolve(outcome);
    };
    const parser = createParser({
      onRetry: (ms) => {
        cursor.retryMs = ms;
      },
      onEvent: (ev) => {
        if (done) return;
        cursor.events++;
        if (ev.id !== undefined) cursor.lastEventId = ev.id;
        if (ev.event !== undefined && ev.event !== 'message') return;
        let m: unknown;
        try {
          m = JSON.parse(ev.data);
        } catch {
          return;
        } // priming events carry no data
        if (!isObject(m)) return;
        if (m.id === call.id && !('method' in m)) {
          finish({ answer: m });
          return;
        }
        const p = m.params;
        if (m.method === 'notifications/progress' && isObject(p) && p.progressToken === call.id) {
          const { progressToken: _token, ...progress } = p;
          call.onprogress?.(progress);
          return;
        }
        call.onOther(m as JSONRPCMessage, cursor.lastEventId);
      },
    });
    const decoder = new TextDecoder();
    body.on('data', (chunk: Buffer) => parser.feed(decoder.decode(chunk, { stream: true })));
    body.on('end', () => finish({ cut: new Error('the target closed the stream before answering') }));
    body.on('error', (err) => finish({ cut: err }));
  });
}

function isObject(v: unknown): v is Message {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
