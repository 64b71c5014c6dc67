// A streamable-HTTP MCP target, spoken to directly instead of through the MCP SDK's client: initialize,
// the target's GET stream, its notifications and requests (answered with a POST), cancellations, and
// DELETE at the end. The SDK and its zod schemas load only for stdio and legacy SSE targets (upstream.ts),
// so a proxy of HTTP targets holds neither, and an idle session costs a few objects per target rather
// than an SDK Client, transport and their pending promises. What it does, MCP's "Streamable HTTP"
// transport and the SDK's client alike: docs/proxy.md "MCP targets over streamable HTTP".
import type {
  Implementation,
  JSONRPCRequest,
  Notification,
  ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { createParser } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import { request } from '../http/undici.js';
import type { McpTarget } from '../../ir/types.js';
import { identityOfTarget, upstreamHeadersOf } from '../backend-auth.js';
import { identityQueryDial, requestIdentity } from './target-identity.js';
import { allowedHeaders } from './target-ext-auth.js';
import { tlsFailureReason } from '../http/upstream-tls.js';
import { type Discovered, discoverAnswers, sentKey } from './discover-cache.js';
import { InternalError, InvalidParams, messageOf } from './jsonrpc.js';
import { isRpcError } from './rpc-error.js';
import {
  type Envelope,
  MissingClientCapability,
  modernVersion,
  routingHeaders,
  serverInfoKey,
  withEnvelope,
} from './modern.js';
import type { TargetDial, Upstream } from './target-connection.js';
import { targetDial } from './target-tls.js';
import { endTargetSession } from './target-session.js';
import { dispatchPost, mediaTypeOf } from './upstream-dispatch.js';
import { admitTargetRequest, streamAgent, upstreamAgent } from './upstream-fetch.js';
import {
  type CallOptions,
  type HttpCallerOptions,
  httpCaller,
  httpResumer,
  postRefused,
  type UpstreamCall,
} from './upstream-http.js';
import { sendWithRetry } from './upstream-retry.js';

type Message = Record<string, unknown>;

/** The version the proxy asks for, and those it accepts in a target's answer (the SDK client's lists). */
export const requestedVersion = '2025-11-25';
export const acceptedVersions: readonly string[] = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];
/** How long a target's generation (2026-07-28 or 2025), learnt from its answer to server/discover, is trusted. */
const generationTtlMs = 60_000;
/** A target's JSON-RPC errors about the request (not about the target): its cached discover answer stays. */
const requestFaults: ReadonlySet<number> = new Set([
  InvalidParams,
  MissingClientCapability,
  -32002, // resource not found
]);
/** Targets known to speak only 2025 (no server/discover), by URL: they are not probed again for a while. */
const legacyTargets = new Map<string, number>();

/** Each target's URL, parsed once per snapshot rather than for every request's connection (never mutated). */
const urls = new WeakMap<McpTarget, URL>();
function targetUrl(target: McpTarget, url: string): URL {
  let parsed = urls.get(target);
  if (!parsed) urls.set(target, (parsed = new URL(url)));
  return parsed;
}

/** A target that never answers initialize must not hold the client's initialize longer than this. */
const initializeTimeoutMs = 30_000;
/** Notifications and answers to the target's requests: the time the target has to accept one. */
const postTimeoutMs = 30_000;
/** The GET stream, when it ends or drops: reconnect attempts in a row, and their backoff. */
export const streamReconnects = { attempts: 2, firstDelayMs: 1_000, growth: 1.5, maxDelayMs: 30_000 };

/** Opens a connection to the target: initialize (or attach to a session another replica began) and the GET stream. */
export async function connectHttpTarget(dial: TargetDial): Promise<Upstream> {
  const up = new HttpTarget(dial);
  try {
    await up.open();
  } catch (err) {
    await up.close();
    // Node's TLS errors quote the certificate's names; say what failed the way static backends do.
    const tlsWhy = targetDial(dial.target) ? tlsFailureReason(err) : undefined;
    throw tlsWhy ? new Error(`TLS to target ${dial.target.name} failed: ${tlsWhy}`) : err;
  }
  return up;
}

class HttpTarget implements Upstream {
  readonly name: string;
  readonly call: UpstreamCall;
  capabilities: ServerCapabilities = {};
  /** The target's server/discover versions when it speaks 2026-07-28; unset for a 2025 target. */
  supportedVersions: string[] | undefined;
  serverInfo: Upstream['serverInfo'] = undefined;
  instructions: string | undefined = undefined;
  alive = true;
  readonly processLocal = false;
  private sid: string | undefined;
  private version: string | undefined;
  /** Set while the target is spoken to in 2026-07-28: what every call's `_meta` carries. */
  private envelope: Envelope | undefined;
  /** Its server/discover answer came from discover-cache.ts: a failed call drops it there. */
  private fromCache = false;
  private readonly url: URL;
  private readonly headers: Record<string, string>;
  /** The per-request identity's headers (target-identity.ts) the latest client request obtained; unset without one. */
  private identity: Record<string, string> | undefined;
  private readonly hasIdentity: boolean;
  private readonly dispatcher: (() => Dispatcher) | undefined;
  /** The GET stream's: never the request pool, whose connection it would pin for the session's life. */
  private readonly streamDispatcher: (() => Dispatcher) | undefined;
  /** The GET stream's request, aborted on close; and the timer of its next reconnect. */
  private stream: AbortController | undefined;
  private reconnect: NodeJS.Timeout | undefined;
  /** The server's `retry:` field, which replaces the backoff. */
  private retryMs: number | undefined;
  /** The target's requests being answered, by id, so its notifications/cancelled can stop them. */
  private readonly answering = new Map<unknown, AbortController>();
  private readonly resumer: ReturnType<typeof httpResumer>;
  /** Settles once the GET stream is open or refused (or at once when none is opened). */
  private streamOpened: (() => void) | undefined;
  readonly streamReady = new Promise<void>((resolve) => {
    this.streamOpened = resolve;
  });

  constructor(private readonly dial: TargetDial) {
    const { target, retry, log } = dial;
    if (!target.remote) throw new Error(`target ${target.name} has no transport`);
    this.name = target.name;
    this.url = targetUrl(target, target.remote.url);
    this.headers = upstreamHeadersOf(target);
    this.hasIdentity = identityOfTarget(target) !== undefined;
    // A query-parameter identity rides on the dispatcher: every request to the target gets it (target-identity.ts).
    const tlsDial = targetDial(target);
    this.dispatcher = identityQueryDial(target, tlsDial, upstreamAgent) ?? tlsDial;
    this.streamDispatcher = identityQueryDial(target, tlsDial, streamAgent) ?? tlsDial;
    const onRetry = (tried: number, why: string): void => log.debug({ tried, why }, 'retrying request to target');
    const callerOptions: HttpCallerOptions = {
      url: this.url,
      sessionId: () => this.sid,
      protocolVersion: () => this.version,
      onSessionId: (id) => {
        this.sid = id;
      },
      onOther: (m, eventId) => this.receive(m as Message, eventId),
      cancel: (requestId, reason) =>
        void this.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason } }),
      ...(retry ? { retry, onRetry } : {}),
      headers: this.headers,
      target: target.name,
      ...(this.dispatcher ? { dispatcher: this.dispatcher } : {}),
    };
    const call = httpCaller(callerOptions);
    this.resumer = httpResumer(callerOptions);
    // One hop, one generation: a 2026 target gets the envelope and the routing headers on every call; a 2025
    // target learnt the client at initialize (the session took a 2026 client's envelope off its requests).
    this.call = (method, params, given) => {
      const env = this.envelope;
      const opts = this.requestHeaders(given);
      if (!env) return call(method, params, opts);
      const headers = { ...opts.headers, ...routingHeaders(method, params) };
      const sent = call(method, withEnvelope(params, env), { ...opts, headers });
      // An answer taken from the cache may be stale (the target restarted, or changed): ask again next time.
      return this.fromCache ? sent.catch((err: unknown) => this.staleAnswer(err)) : sent;
    };
  }

  /** A failed call drops the target's cached answers, unless the target only refused the request itself. */
  private staleAnswer(err: unknown): never {
    if (!(isRpcError(err) && requestFaults.has(err.code))) {
      discoverAnswers.forget(this.dial.target);
      this.fromCache = false;
    }
    throw err;
  }

  sessionId(): string | undefined {
    return this.sid;
  }

  protocolVersion(): string | undefined {
    return this.version;
  }

  async open(): Promise<void> {
    const { resume, clientInfo, capabilities } = this.dial;
    if (resume) {
      // Another replica initialized this session: attach to it as it stands, without a new GET stream
      // (the target's own messages reach the client through the calls' streams, as with the SDK client).
      this.sid = resume.sessionId;
      this.version = resume.protocolVersion;
      this.capabilities = resume.capabilities;
      this.streamOpened?.();
      return;
    }
    if (await this.discover()) return void this.streamOpened?.();
    const result = await this.call(
      'initialize',
      {
        protocolVersion: requestedVersion,
        // A 2026 client's sampling, elicitation and roots reach it as input requests (input-bridge.ts).
        capabilities,
        clientInfo,
      },
      { timeoutMs: initializeTimeoutMs },
    );
    const version = result.protocolVersion;
    if (typeof version !== 'string' || !acceptedVersions.includes(version))
      throw new Error(`Server's protocol version is not supported: ${String(version)}`);
    if (!isObject(result.capabilities)) throw new Error('the target answered initialize without capabilities');
    this.version = version;
    this.capabilities = result.capabilities as ServerCapabilities;
    if (isObject(result.serverInfo) && typeof result.serverInfo.name === 'string')
      this.serverInfo = result.serverInfo as unknown as Upstream['serverInfo'];
    if (typeof result.instructions === 'string') this.instructions = result.instructions;
    await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, true);
    // A session that lives for one request of a 2026 client has nobody to take the target's own messages.
    if (!this.dial.modernClient || this.dial.modernClient.listening) this.listen(undefined, 0, false);
    else this.streamOpened?.();
  }

  /** Answers one of the target's requests in its session from here (a retry carrying a 2026 client's input). */
  respond(id: string | number, answer: { result: Message } | { error: Message }): Promise<void> {
    return this.post({ jsonrpc: '2.0', id, ...answer }, true);
  }

  /** Reads a call this session began elsewhere from event `from` on, until its answer. */
  resumeCall(id: string, from: string, opts: CallOptions): Promise<Message> {
    return this.resumer(id, from, opts);
  }

  /**
   * Asks the target for server/discover in 2026-07-28 (or takes its answer from discover-cache.ts); true
   * when it speaks it. A target that refuses (a 2025 server answers 400 or method-not-found) is remembered
   * as 2025 for a while and initialized instead.
   */
  private async discover(): Promise<boolean> {
    const key = this.url.href;
    if ((legacyTargets.get(key) ?? 0) > Date.now()) return false;
    const { clientInfo, capabilities, target, caller } = this.dial;
    this.version = modernVersion;
    this.envelope = { protocolVersion: modernVersion, clientCapabilities: capabilities, clientInfo };
    const sent = sentKey(capabilities, clientInfo);
    const cached = discoverAnswers.get(target, sent, caller);
    if (cached) {
      this.discovered(cached);
      this.fromCache = true;
      return true;
    }
    try {
      const r = await this.call('server/discover', {}, { timeoutMs: initializeTimeoutMs });
      const versions = r.supportedVersions;
      if (Array.isArray(versions) && versions.includes(modernVersion) && isObject(r.capabilities)) {
        const info = isObject(r._meta) ? r._meta[serverInfoKey] : undefined;
        const found: Discovered = {
          supportedVersions: versions.filter((v): v is string => typeof v === 'string'),
          capabilities: r.capabilities as ServerCapabilities,
          serverInfo: isObject(info) && typeof info.name === 'string' ? (info as unknown as Implementation) : undefined,
          instructions: typeof r.instructions === 'string' ? r.instructions : undefined,
        };
        this.discovered(found);
        discoverAnswers.put(target, sent, caller, r, found);
        return true;
      }
    } catch (err) {
      this.dial.log.debug({ err: messageOf(err) }, 'the target does not answer server/discover; initializing');
    }
    discoverAnswers.forget(target);
    this.version = undefined;
    this.envelope = undefined;
    if (legacyTargets.size >= 1024) legacyTargets.clear(); // bounded: one entry per target URL
    legacyTargets.set(key, Date.now() + generationTtlMs);
    return false;
  }

  private discovered(d: Discovered): void {
    this.supportedVersions = d.supportedVersions;
    this.capabilities = d.capabilities;
    this.serverInfo = d.serverInfo;
    this.instructions = d.instructions;
  }

  notify(method: string): Promise<void> {
    // 2026-07-28 has no session to notify about (roots travel in each request's capabilities).
    if (this.envelope) return Promise.resolve();
    return this.post({ jsonrpc: '2.0', method });
  }

  async close(end = true): Promise<void> {
    this.alive = false;
    clearTimeout(this.reconnect);
    this.stream?.abort();
    for (const handler of this.answering.values()) handler.abort();
    this.answering.clear();
    // The spec asks a client that is done with a session to end it; a target that does not allow it answers 405.
    if (end && this.sid)
      await endTargetSession(this.dial.target, this.sid, this.version, this.dial.retry, this.identityHeaders());
  }

  /** The GET stream's request under the route's `traffic.retry` (it may be repeated: treated as a read). */
  private withRetry<R extends { statusCode: number; body: { dump(): Promise<void> } }>(
    signal: AbortSignal,
    send: () => Promise<R>,
  ): Promise<R> {
    const { retry, log } = this.dial;
    if (!retry) return send();
    return sendWithRetry(send, {
      plan: retry,
      method: 'ping',
      timeoutMs: undefined,
      signal,
      onRetry: (tried, why) => log.debug({ tried, why, request: 'GET' }, 'retrying request to target'),
    });
  }

  /**
   * POSTs a notification or an answer to one of the target's requests (which the target accepts with 202).
   * `strict`: a refusal throws (notifications/initialized); otherwise it is logged and dropped.
   */
  private async post(message: Message, strict = false): Promise<void> {
    const origin = this.url.origin;
    let release: (() => void) | undefined;
    try {
      release = admitTargetRequest(origin);
      const headers = this.sessionHeaders({
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      });
      const body = JSON.stringify(message);
      const send = (headersTimeout: number | undefined) =>
        dispatchPost(this.dispatcher?.() ?? upstreamAgent, {
          origin,
          path: `${this.url.pathname}${this.url.search}`,
          headers,
          body,
          headersTimeout: headersTimeout ?? postTimeoutMs,
          bodyTimeout: postTimeoutMs,
          cancel: undefined,
        });
      const { retry, log } = this.dial;
      const res = await (retry
        ? sendWithRetry(send, {
            plan: retry,
            method: '', // a notification or an answer: retried only when the target cannot have had it
            timeoutMs: postTimeoutMs,
            signal: undefined,
            onRetry: (tried, why) => log.debug({ tried, why }, 'retrying request to target'),
          })
        : send(undefined));
      if (res.statusCode < 200 || res.statusCode >= 300) {
        throw postRefused(res.statusCode, await res.body.text().catch(() => ''));
      }
      res.body.resume();
    } catch (err) {
      if (strict) throw err;
      this.dial.log.debug(
        { method: message.method ?? 'answer', err: messageOf(err) },
        'the target did not take a message',
      );
    } finally {
      release?.();
    }
  }

  /**
   * A call's options with the headers of the client request being served: those its allow by this target's
   * backend.extAuth set (target-ext-auth.ts), then the identity's; the call's own last.
   */
  private requestHeaders(given: CallOptions): CallOptions {
    const allowed = allowedHeaders(this.name, this.headers);
    if (!allowed && !this.hasIdentity) return given;
    return { ...given, headers: { ...allowed, ...this.identityHeaders(), ...given.headers } };
  }

  /** The identity's headers of the client request being served, else those of the session's latest request. */
  private identityHeaders(): Record<string, string> | undefined {
    if (!this.hasIdentity) return undefined;
    this.identity = requestIdentity(this.name) ?? this.identity;
    return this.identity;
  }

  private sessionHeaders(extra: Record<string, string>): Record<string, string> {
    return {
      ...this.headers,
      ...this.identityHeaders(),
      ...extra,
      ...(this.sid ? { 'mcp-session-id': this.sid } : {}),
      ...(this.version ? { 'mcp-protocol-version': this.version } : {}),
    };
  }

  /**
   * The GET stream, for the target's messages outside any call. A target without one answers 405. When it
   * ends or drops the proxy reconnects from the last event id; `streamReconnects.attempts` failed
   * reconnects in a row (refused, or no connection) and it stops.
   */
  private listen(lastEventId: string | undefined, failures: number, reconnecting: boolean): void {
    if (!this.alive) return void this.streamOpened?.();
    const abort = (this.stream = new AbortController());
    const headers = this.sessionHeaders({
      accept: 'text/event-stream',
      ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}),
    });
    this.withRetry(abort.signal, () =>
      request(this.url, {
        method: 'GET',
        headers,
        // Never from the request pool: the stream would pin a pooled connection for the session's life.
        dispatcher: this.streamDispatcher?.() ?? streamAgent,
        signal: abort.signal,
      }),
    ).then(
      (res) => {
        const type = mediaTypeOf(String(res.headers['content-type'] ?? ''));
        this.streamOpened?.();
        if (res.statusCode < 200 || res.statusCode >= 300 || type !== 'text/event-stream') {
          res.body.resume();
          if (res.statusCode === 405) {
            this.dial.log.debug('the target has no GET stream (405); not asking again');
            return;
          }
          this.dial.log.debug({ status: res.statusCode, type }, 'the target refused its GET stream');
          // The first refusal is the target's answer; a refused reconnect may be a target restarting.
          if (reconnecting) this.again(lastEventId, failures + 1);
          return;
        }
        this.readStream(res.body, lastEventId);
      },
      (err: unknown) => {
        this.streamOpened?.();
        if (!this.alive) return;
        this.dial.log.debug({ err: messageOf(err) }, 'the target GET stream could not be opened');
        this.again(lastEventId, failures + 1);
      },
    );
  }

  private again(lastEventId: string | undefined, failures: number): void {
    if (!this.alive) return;
    const r = streamReconnects;
    if (failures >= r.attempts) {
      this.dial.log.debug({ attempts: failures }, 'gave up reconnecting the target GET stream');
      return;
    }
    const delay = this.retryMs ?? Math.min(r.firstDelayMs * r.growth ** failures, r.maxDelayMs);
    this.reconnect = setTimeout(() => this.listen(lastEventId, failures, true), delay);
    this.reconnect.unref();
  }

  private readStream(body: NodeJS.ReadableStream, resumedFrom: string | undefined): void {
    let lastEventId = resumedFrom;
    const parser = createParser({
      onRetry: (ms) => {
        this.retryMs = ms;
      },
      onEvent: (ev) => {
        if (ev.id !== undefined) lastEventId = ev.id;
        if (!ev.data || (ev.event !== undefined && ev.event !== 'message')) return;
        let m: unknown;
        try {
          m = JSON.parse(ev.data);
        } catch {
          this.dial.log.debug('the target sent an event that is not JSON; dropped');
          return;
        }
        if (isObject(m)) this.receive(m);
      },
    });
    const decoder = new TextDecoder();
    body.on('data', (chunk: Buffer) => parser.feed(decoder.decode(chunk, { stream: true })));
    const ended = (): void => {
      body.removeAllListeners();
      body.on('error', () => undefined);
      // An established stream that ends starts a fresh count of attempts.
      this.again(lastEventId, 0);
    };
    body.once('end', ended);
    body.once('error', ended);
  }

  /** A message from the target outside a call's own answer: a notification or a request. */
  private receive(m: Message, eventId?: string): void {
    if (typeof m.method !== 'string') return; // an answer nobody waits for (a replayed call that already ended)
    if ('id' in m && m.id !== undefined && m.id !== null) {
      void this.answer(m as unknown as JSONRPCRequest, eventId);
      return;
    }
    if (m.method === 'notifications/cancelled') {
      const p = isObject(m.params) ? m.params : {};
      this.answering.get(p.requestId)?.abort(typeof p.reason === 'string' ? p.reason : 'cancelled by target');
      return;
    }
    // Progress for a call whose stream already ended has nobody to go to.
    if (m.method === 'notifications/progress') return;
    this.dial.events.onNotification(this.name, m as unknown as Notification);
  }

  /** Answers a request of the target: ping here, the rest by the client session (sampling, elicitation, roots). */
  private async answer(r: JSONRPCRequest, eventId: string | undefined): Promise<void> {
    if (r.method === 'ping') {
      await this.post({ jsonrpc: '2.0', id: r.id, result: {} });
      return;
    }
    const handler = new AbortController();
    this.answering.set(r.id, handler);
    let reply: Message;
    try {
      const result = await this.dial.events.onRequest(this.name, r, handler.signal, eventId);
      reply = { jsonrpc: '2.0', id: r.id, result };
    } catch (err) {
      const e = err as { code?: unknown; message?: unknown; data?: unknown };
      reply = {
        jsonrpc: '2.0',
        id: r.id,
        error: {
          code: Number.isSafeInteger(e.code) ? e.code : InternalError,
          message: typeof e.message === 'string' ? e.message : 'Internal error',
          ...(e.data !== undefined ? { data: e.data } : {}),
        },
      };
    } finally {
      this.answering.delete(r.id);
    }
    // A request the target cancelled gets no answer.
    if (!handler.signal.aborted) await this.post(reply);
  }
}

function isObject(v: unknown): v is Message {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Whether a target is reached over streamable HTTP (here), not through the SDK client (stdio, legacy SSE). */
export function speaksStreamableHttp(t: McpTarget): boolean {
  return t.transport === 'remote' && !!t.remote && t.remote.protocol !== 'SSE';
}
