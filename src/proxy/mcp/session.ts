// One client session: its upstream connections (one per target), the merged view of their tools,
// prompts and resources, and the plumbing that passes progress, cancellation and server-to-client
// requests to the right side.
import type { Notification, JSONRPCRequest, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { McpBackend, McpTarget } from '../../ir/types.js';
import type { Authorize, AuthorizeContext } from '../auth/hooks.js';
import {
  type Id,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  InternalError,
  InvalidParams,
  MethodNotFound,
  internalError,
  messageOf,
  rpcError,
  targetFailureText,
} from './jsonrpc.js';
import { Catalog, lists, type Item, type ListKind } from './catalog.js';
import type { ResumeAt, TargetDial, Upstream } from './target-connection.js';
import { connectHttpTarget, speaksStreamableHttp } from './http-target.js';
import { RpcError, isRpcError } from './rpc-error.js';
import { loadMcpClient } from '../lazy/mcp-client.js';
import { CallCancel } from './call-cancel.js';
import { childOf } from './log-children.js';
import { SessionGone, TargetRecovery } from './session-recovery.js';
import { endTargetSession } from './target-session.js';
import { type SealedTarget, type SessionSealer, type SessionState, subjectOf } from './session-seal.js';
import { type Continuation, type HeldCalls, InputBridge, heldElsewhere, isBridgeState } from './input-bridge.js';
import { isSaturated } from './upstream-fetch.js';
import { ProxyError } from '../proxy-error.js';
import { decodeCursor, encodeCursor, usesPrefix } from './multiplex.js';
import { EventLog, SseStream } from './sse-stream.js';
import { Listen, type ListenFilter } from './listen.js';
import {
  type Envelope,
  combineKeyed,
  isInputRequired,
  modernVersion,
  offeredVersions,
  toLegacyResult,
  toModernResult,
  unwrapRequestState,
  withoutEnvelope,
  withoutServerRequests,
  wrapRequestState,
} from './modern.js';
import type { McpGuardrailChain } from './guardrails/index.js';
import type { RetryPlan } from '../policy/traffic-policy.js';
import type { TargetHealth } from './target-health.js';
import { allowedTargets, deniedCall, targetDenial } from './target-ext-auth.js';

export const supportedVersions = ['2025-11-25', '2025-06-18', '2025-03-26'];
export const latestVersion = '2025-11-25';
const resourceNotFound = -32002;
/** Rounds of input a 2026 target may ask a 2025 client for within one call. */
const maxInputRounds = 8;
/** A call to a target with no route timeout; progress notifications restart it. */
const defaultCallTimeoutMs = 300_000;

/** Where messages related to one client request go: its SSE response, or the session's GET stream. */
export interface Sink {
  send(message: JsonRpcMessage): boolean;
}

export interface CallContext {
  claims: Record<string, unknown> | null;
  /** The metadata of the API key the caller authenticated with (CEL `apiKey`). */
  apiKey?: Record<string, unknown>;
  request: AuthorizeContext['request'];
  sink: Sink | undefined;
  /** The request's trace context (`traceparent`), sent on its calls to HTTP targets; unset when tracing is off. */
  trace?: Record<string, string>;
  /** Settles when the client's HTTP exchange closes (a subscriptions/listen lasts until then). */
  closed?: Promise<void>;
}

/** How a tools/call ended (gw_mcp_tool_calls_total): ok; tool_error: the result says isError; error: a JSON-RPC error. */
export type ToolCallOutcome = 'ok' | 'tool_error' | 'error';

export interface SessionOptions {
  id: string;
  backend: McpBackend;
  serverInfo: { name: string; title: string; version: string };
  authorize?: Authorize;
  log: Logger;
  onTargetFailure(target: string, phase: string): void;
  onToolCall?(target: string, tool: string, outcome: ToolCallOutcome): void;
  /** A session that lives for one HTTP request (stateless routing): no replay buffer. */
  stateless?: boolean;
  /** backend.mcp.guardrails of the route's edge: remote processors around every client request. */
  guardrails?: McpGuardrailChain;
  /** Bound of one call to a target (the route's `timeouts`); default 5 minutes. */
  callTimeoutMs?: number;
  /** Target name → its `backend.http.requestTimeout`, used when the route sets no `timeouts`. */
  targetCallTimeoutMs?: Readonly<Record<string, number>>;
  /** The route's `traffic.retry` for requests to remote streamable-HTTP targets. */
  retry?: RetryPlan;
  /** Passive health of the targets (`backend.health`): ejected ones are left out and fail fast. */
  health?: TargetHealth;
  /** The client speaks 2026-07-28: this session serves one of its requests, described by the envelope. */
  modern?: { envelope: Envelope; listening: boolean };
  /** Seals the continuation of a 2025 target's requests for input to a 2026 client, and holds the calls only this process can finish (input-bridge.ts). */
  bridge?: { sealer: SessionSealer; held: HeldCalls; answerWithinMs: number };
}

export class McpSession {
  /** The sealed session id (session-seal.ts), set once initialize succeeded; '' when stateless. */
  id: string;
  log: Logger;
  protocolVersion = latestVersion;
  /** What initialize sent, replayed when a target session is re-initialized. */
  clientInfo = { name: 'gw-client', version: '0' };
  clientCapabilities: Record<string, unknown> = {};
  /** The target sessions the id was sealed with. */
  sealed: SealedTarget[] | undefined;
  /** When the sealed id stops opening (milliseconds since the epoch). */
  expiresAt = Infinity;
  lastActive = Date.now();
  /** The key the registry counts this session under (sessions.ts clientKeyOf). */
  client = '';
  /** The token issuer and subject that created the session; requests from another are answered 404. */
  subject: string | undefined;
  /** The GET stream once opened; it keeps logging events while the client is away. */
  standalone: SseStream | undefined;
  closed = false;
  /** Every SSE event of the session, bounded, for clients that resume with Last-Event-ID (none when stateless). */
  readonly events: EventLog | undefined;
  /** POST answer streams whose call is still running, by stream number: a resume attaches to them. */
  readonly streams = new Map<number, SseStream>();
  private readonly upstreams = new Map<string, Upstream>();
  private readonly catalog: Catalog;
  private readonly recovery: TargetRecovery;
  private readonly inflight = new Map<Id, CallCancel>();
  private readonly activeSinks = new Map<string, Sink[]>();
  private readonly clientPending = new Map<
    string,
    { resolve(r: Record<string, unknown>): void; reject(e: Error): void }
  >();
  private nextClientId = 1;
  /** The latest client request's context: what guardrails see with messages no client request carries. */
  private lastCall: CallContext | undefined;
  /** Guarded client notifications, one after another so they take effect in the order sent. */
  private notified: Promise<void> = Promise.resolve();
  /** The subscriptions/listen this session serves (2026 clients). */
  private listener: Listen | undefined;
  /** A 2026 client's session: 2025 targets' requests to the client become input requests. */
  private readonly bridge: InputBridge | undefined;

  constructor(private readonly opts: SessionOptions) {
    this.id = opts.id;
    this.log = opts.log;
    this.events = opts.stateless ? undefined : new EventLog();
    if (opts.modern) {
      const env = opts.modern.envelope;
      this.protocolVersion = env.protocolVersion;
      this.clientInfo = env.clientInfo;
      this.clientCapabilities = env.clientCapabilities;
      if (opts.bridge)
        this.bridge = new InputBridge({
          ...opts.bridge,
          guard: (target, ask, answer) => this.guardAnswer(target, ask, answer),
        });
    }
    const targetNames = opts.backend.targets.map((t) => t.name);
    const health = opts.health;
    this.recovery = new TargetRecovery({
      backend: opts.backend,
      upstreams: this.upstreams,
      sealed: () => this.sealed,
      connect: (t) => this.connectTarget(t),
      ...(health ? { guard: (up: Upstream) => health.guard(up) } : {}),
      log: opts.log,
    });
    this.catalog = new Catalog({
      upstreams: this.upstreams,
      targetNames,
      prefixed: usesPrefix(opts.backend.prefixMode, targetNames.length),
      failOpen: opts.backend.failureMode === 'FAIL_OPEN',
      timeoutMs: (target) => this.callTimeoutMs(target),
      log: opts.log,
      onTargetFailure: opts.onTargetFailure,
      live: (name) => this.recovery.live(name),
      ...(health ? { ejected: (name: string) => health.ejected(name) } : {}),
    });
  }

  /** Bound of one call to `target`: the route's timeouts, else the target's request timeout, else 5 minutes. */
  private callTimeoutMs(target: string): number {
    return this.opts.callTimeoutMs || this.opts.targetCallTimeoutMs?.[target] || defaultCallTimeoutMs;
  }

  /** A new answer stream for a POST, live until `finishStream`. */
  openStream(): SseStream {
    const stream = new SseStream(this.events?.newStream() ?? 1, this.events, this.id);
    this.streams.set(stream.no, stream);
    return stream;
  }

  finishStream(stream: SseStream, last?: JsonRpcMessage): void {
    this.streams.delete(stream.no);
    stream.end(last);
  }

  /** The GET stream, created on first use. */
  getStream(): SseStream {
    this.standalone ??= new SseStream(0, this.events, this.id);
    return this.standalone;
  }

  /** Serves one request of a 2026-07-28 client. */
  get modern(): boolean {
    return this.opts.modern !== undefined;
  }

  /** A call in flight counts as activity, however long it runs. */
  get busy(): boolean {
    return this.inflight.size > 0;
  }

  /** Connects every target; FailClosed turns any failure into an initialize error. */
  async initialize(req: JsonRpcRequest): Promise<JsonRpcResponse> {
    const params = req.params ?? {};
    const asked = typeof params.protocolVersion === 'string' ? params.protocolVersion : '';
    this.protocolVersion = supportedVersions.includes(asked) ? asked : latestVersion;
    if (isObject(params.clientInfo) && typeof params.clientInfo.name === 'string')
      this.clientInfo = { name: params.clientInfo.name, version: String(params.clientInfo.version ?? '0') };
    this.clientCapabilities = isObject(params.capabilities) ? params.capabilities : {};
    const failed = await this.connect(req.id);
    if (failed) return failed;
    return {
      jsonrpc: '2.0',
      id: req.id,
      result: {
        protocolVersion: this.protocolVersion,
        capabilities: this.mergedCapabilities(),
        serverInfo: this.opts.serverInfo,
        ...this.instructions(),
      },
    };
  }

  /**
   * Connects every target (initialize or server/discover, per target); the error to answer with when
   * FailClosed fails, or a ProxyError (503) when only busy targets failed.
   */
  async connect(
    id: Id,
    resumeOf: (name: string) => ResumeAt | undefined = () => undefined,
  ): Promise<JsonRpcResponse | undefined> {
    const failures = await this.connectAll(resumeOf);
    if (failures === undefined) return undefined;
    await this.close();
    // Only busy targets failed: the client is told to come back (503 + Retry-After), not that they are broken.
    if (failures.saturated)
      throw new ProxyError('overloaded', `targets are saturated: ${failures.text}; retry later`, {
        'retry-after': '1',
      });
    return rpcError(id, InternalError, `target failed to initialize: ${failures.text}`);
  }

  /**
   * Resumes a session another replica or worker began: streamable-HTTP targets are attached to their
   * sealed sessions without initialize, process-local ones (stdio, legacy SSE) and targets the session
   * never had are initialized afresh with the client's sealed capabilities. False when FailClosed fails.
   */
  async resume(state: SessionState): Promise<boolean> {
    this.protocolVersion = state.protocolVersion;
    this.clientInfo = state.clientInfo;
    this.clientCapabilities = state.clientCapabilities;
    this.subject = state.subject;
    this.sealed = state.targets;
    this.expiresAt = state.expiresAt;
    const failures = await this.connectAll((name) => {
      const s = state.targets.find((t) => t.name === name);
      return s?.sessionId
        ? { sessionId: s.sessionId, protocolVersion: s.protocolVersion, capabilities: s.capabilities }
        : undefined;
    });
    if (failures === undefined) return true;
    await this.close();
    return false;
  }

  /** What a replica needs to resume this session; the target sessions as they are now. */
  state(route: string, expiresAt: number): SessionState {
    return {
      route,
      protocolVersion: this.protocolVersion,
      clientCapabilities: this.clientCapabilities,
      clientInfo: this.clientInfo,
      ...(this.subject !== undefined ? { subject: this.subject } : {}),
      expiresAt,
      targets: [...this.upstreams.values()].map((u) => {
        const sessionId = u.sessionId();
        const protocolVersion = u.protocolVersion();
        return {
          name: u.name,
          ...(sessionId ? { sessionId } : {}),
          ...(protocolVersion ? { protocolVersion } : {}),
          capabilities: u.capabilities,
        };
      }),
    };
  }

  /**
   * Connects every target; the failures as one text when FailClosed (or no target at all) makes them fatal,
   * `saturated` when every failed target only refused for being busy.
   */
  private async connectAll(
    resumeOf: (name: string) => ResumeAt | undefined,
  ): Promise<{ text: string; saturated: boolean } | undefined> {
    // Targets ejected by passive health are left out, as if they were not there (FailClosed included).
    const health = this.opts.health;
    const targets = health
      ? this.opts.backend.targets.filter((t) => !health.ejected(t.name))
      : this.opts.backend.targets;
    const results = await Promise.allSettled(targets.map((t) => this.connectTarget(t, resumeOf(t.name))));
    const failures: string[] = [];
    let saturated = 0;
    results.forEach((r, i) => {
      const name = targets[i]?.name ?? '';
      if (r.status === 'fulfilled') this.upstreams.set(name, this.recovery.wrap(r.value));
      else {
        this.opts.onTargetFailure(name, 'initialize');
        this.log.error({ target: name, err: messageOf(r.reason) }, 'target failed to initialize');
        failures.push(`${name}: ${messageOf(r.reason)}`);
        if (isSaturated(r.reason)) saturated++;
      }
    });
    const failOpen = this.opts.backend.failureMode === 'FAIL_OPEN';
    if (failures.length === 0 || (failOpen && this.upstreams.size > 0)) return undefined;
    return { text: failures.join('; '), saturated: saturated === failures.length };
  }

  /** A connection to the target; its outcome counts for passive health. */
  private connectTarget(t: McpTarget, resume?: ResumeAt): Promise<Upstream> {
    const health = this.opts.health;
    return health ? health.observe(t.name, () => this.dialTarget(t, resume)) : this.dialTarget(t, resume);
  }

  // Streamable-HTTP targets directly; the SDK client, for stdio and legacy SSE targets, loads with the
  // first snapshot that has one (the runtime awaits it at apply).
  private async dialTarget(t: McpTarget, resume?: ResumeAt): Promise<Upstream> {
    const modern = this.opts.modern;
    const dial: TargetDial = {
      target: t,
      clientInfo: this.clientInfo,
      // Targets reached through the SDK client speak 2025 only: no client stream carries their requests.
      capabilities:
        modern && !speaksStreamableHttp(t) ? withoutServerRequests(this.clientCapabilities) : this.clientCapabilities,
      events: {
        onNotification: (target, n) => this.fromUpstream(target, n),
        onRequest: (target, r, signal, eventId) => this.fromTarget(target, r, signal, eventId),
        onClose: (target) => this.opts.onTargetFailure(target, 'connection'),
      },
      log: childOf(this.log, 'target', t.name),
      retry: this.opts.retry,
      resume,
      caller: this.subject,
      modernClient: modern ? { listening: modern.listening } : undefined,
    };
    if (speaksStreamableHttp(t)) return connectHttpTarget(dial);
    return (await loadMcpClient()).connectUpstream(dial);
  }

  /** Checks the authorization hook before any response bytes go out; false answers HTTP 403. */
  allows(req: JsonRpcRequest, ctx: CallContext): boolean {
    const { authorize } = this.opts;
    if (!authorize) return true;
    return authorize(this.authorizeContext(ctx, mcpContextOf(req)));
  }

  handle(sent: JsonRpcRequest, ctx: CallContext): Promise<JsonRpcResponse | undefined> {
    this.lastActive = Date.now();
    // The envelope is the session's (each hop adds its own): rules and processors see one shape in both generations.
    const req = this.opts.modern && sent.params ? { ...sent, params: withoutEnvelope(sent.params) } : sent;
    this.lastCall = ctx;
    // mcp guardrails: processors see the request after authorization and the result before the client does.
    const guardrails = this.opts.guardrails;
    const out = guardrails ? guardrails.around(req, ctx, this, (r) => this.dispatch(r, ctx)) : this.dispatch(req, ctx);
    return this.opts.modern ? out.then((r) => this.modernAnswer(req.method, r)) : out;
  }

  /** Processors and rules see one shape in both generations; a 2026 client's answer is stamped last. */
  private modernAnswer(method: string, out: JsonRpcResponse | undefined): JsonRpcResponse | undefined {
    if (!out || !('result' in out)) return out;
    const { name, version } = this.opts.serverInfo;
    return { ...out, result: toModernResult(method, out.result, { name, version }) };
  }

  private async dispatch(req: JsonRpcRequest, ctx: CallContext): Promise<JsonRpcResponse | undefined> {
    const p = req.params ?? {};
    if (this.bridge && isBridgeState(p.requestState)) return this.continueInput(this.bridge, req, ctx);
    switch (req.method) {
      case 'ping':
        return { jsonrpc: '2.0', id: req.id, result: {} };
      case 'initialize':
        return rpcError(req.id, InternalError, 'session is already initialized');
      case 'server/discover':
        return this.discover(req);
      case 'subscriptions/listen':
        return this.listen(req, ctx);
      case 'tools/list':
        return this.list('tools', req, ctx);
      case 'prompts/list':
        return this.list('prompts', req, ctx);
      case 'resources/list':
        return this.list('resources', req, ctx);
      case 'resources/templates/list':
        return this.list('resourceTemplates', req, ctx);
      case 'tools/call':
        return this.callNamed('tools', req, ctx);
      case 'prompts/get':
        return this.callNamed('prompts', req, ctx);
      case 'resources/read':
      case 'resources/subscribe':
      case 'resources/unsubscribe': {
        // A retried read goes straight to the target whose requestState it carries (forward checks it).
        const up = this.issuerOf(p) ?? (await this.catalog.resolveResource(String(p.uri ?? '')));
        if (!up) return rpcError(req.id, resourceNotFound, `Resource not found: ${String(p.uri ?? '')}`);
        return this.forward(up, req, p, ctx);
      }
      case 'completion/complete':
        return this.complete(req, ctx);
      case 'logging/setLevel': {
        await Promise.all(
          this.alive()
            .filter((u) => u.capabilities.logging)
            .map((u) => this.forward(u, req, p, ctx)),
        );
        return { jsonrpc: '2.0', id: req.id, result: {} };
      }
      default: {
        const only = this.alive();
        if (only.length === 1 && only[0]) return this.forward(only[0], req, p, ctx);
        return rpcError(req.id, MethodNotFound, `Method not found: ${req.method}`);
      }
    }
  }

  notify(n: JsonRpcNotification, ctx?: CallContext): void {
    this.lastActive = Date.now();
    const guardrails = this.opts.guardrails;
    if (!guardrails) return this.applyNotification(n);
    // mcp guardrails see client notifications before the proxy acts on them; a rejection drops one.
    const call = ctx ?? this.lastCall ?? noCall;
    this.notified = this.notified
      .then(() => guardrails.notification(n, call, this))
      .then((out) => {
        if (out && !this.closed) this.applyNotification(out);
      })
      .catch((err: unknown) =>
        this.log.error(
          { method: n.method, err: messageOf(err) },
          'guarding a client notification failed; it was dropped',
        ),
      );
  }

  private applyNotification(n: JsonRpcNotification): void {
    const p = n.params ?? {};
    if (n.method === 'notifications/cancelled') {
      this.inflight.get(p.requestId as Id)?.abort(typeof p.reason === 'string' ? p.reason : 'cancelled by client');
    } else if (n.method === 'notifications/roots/list_changed') {
      for (const u of this.alive()) void u.notify(n.method).catch(() => undefined);
    }
  }

  /** A client's answer to a server-to-client request the proxy passed on. */
  respond(r: JsonRpcResponse): void {
    const pending = this.clientPending.get(String(r.id));
    if (!pending) return;
    this.clientPending.delete(String(r.id));
    if ('result' in r) pending.resolve(r.result);
    else pending.reject(new RpcError(r.error.code, r.error.message, r.error.data));
  }

  /**
   * `end` (DELETE, a failed initialize, a stateless request) also ends the target sessions, the sealed ones
   * included, so every replica holding a copy learns it; without it (idle, shutdown) only this process lets go.
   */
  async close(end = true): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const cancel of this.inflight.values()) cancel.abort('session closed');
    for (const p of this.clientPending.values()) p.reject(new RpcError(InternalError, 'session closed'));
    this.clientPending.clear();
    this.standalone?.end();
    // Target sessions a 2026 client's requestState continues stay open at the target (input-bridge.ts).
    const ending = [...this.upstreams.values()]
      .filter((u) => !this.bridge?.handedOver.has(u.name))
      .map((u) => u.close(end && !this.bridge?.kept.has(u.name)));
    if (end) {
      // Sealed target sessions this replica replaced after a target restart are ended too (harmless if gone).
      const current = new Set([...this.upstreams.values()].map((u) => u.sessionId()));
      for (const s of this.sealed ?? []) {
        const t = this.opts.backend.targets.find((x) => x.name === s.name);
        if (t && s.sessionId && !current.has(s.sessionId))
          ending.push(endTargetSession(t, s.sessionId, s.protocolVersion));
      }
    }
    await Promise.all(ending);
  }

  private alive(): Upstream[] {
    return [...this.upstreams.values()].filter((u) => u.alive);
  }

  /** server/discover: the targets' answers merged (versions intersected, capabilities and extensions combined). */
  private discover(req: JsonRpcRequest): JsonRpcResponse {
    const modernTargets = [...this.upstreams.values()].flatMap((u) =>
      u.supportedVersions ? [u.supportedVersions] : [],
    );
    return {
      jsonrpc: '2.0',
      id: req.id,
      result: {
        supportedVersions: offeredVersions([modernVersion, ...supportedVersions], modernTargets),
        capabilities: this.mergedCapabilities(),
        ...this.instructions(),
      },
    };
  }

  /** subscriptions/listen (listen.ts): answered by no result; the stream lasts until the client closes it. */
  private async listen(req: JsonRpcRequest, ctx: CallContext): Promise<JsonRpcResponse | undefined> {
    const sink = ctx.sink;
    const closed = ctx.closed;
    if (!sink || !closed || this.listener)
      return rpcError(req.id, InvalidParams, 'subscriptions/listen needs a text/event-stream answer of its own');
    const asked = (isObject(req.params?.notifications) ? req.params.notifications : {}) as ListenFilter;
    // A URI the caller may not subscribe to is left out of what any target is asked.
    const authorize = this.opts.authorize;
    const filter: ListenFilter =
      authorize && asked.resourceSubscriptions
        ? {
            ...asked,
            resourceSubscriptions: asked.resourceSubscriptions.filter((uri) =>
              authorize(this.authorizeContext(ctx, { method: 'resources/subscribe', resource: String(uri) })),
            ),
          }
        : asked;
    const listener = (this.listener = new Listen(req.id, sink, filter, this.log));
    listener.start(await allowedTargets(this.alive()));
    await Promise.race([listener.acknowledged, closed]);
    listener.acknowledge();
    await closed;
    await listener.close();
    return undefined;
  }

  private mergedCapabilities(): ServerCapabilities {
    const ups = [...this.upstreams.values()].map((u) => u.capabilities);
    const out: ServerCapabilities = {};
    const extensions = combineKeyed(ups.map((c) => (c as { extensions?: unknown }).extensions));
    const experimental = combineKeyed(ups.map((c) => c.experimental));
    if (extensions) (out as { extensions?: unknown }).extensions = extensions;
    if (experimental) out.experimental = experimental as ServerCapabilities['experimental'];
    if (ups.some((c) => c.tools)) out.tools = { listChanged: true };
    if (ups.some((c) => c.prompts)) out.prompts = { listChanged: true };
    if (ups.some((c) => c.resources))
      out.resources = { listChanged: true, subscribe: ups.some((c) => c.resources?.subscribe === true) };
    if (ups.some((c) => c.logging)) out.logging = {};
    if (ups.some((c) => c.completions)) out.completions = {};
    return out;
  }

  private instructions(): { instructions?: string } {
    const parts = [...this.upstreams.values()]
      .filter((u) => u.instructions)
      .map((u) => (this.upstreams.size > 1 ? `${u.name}: ${u.instructions}` : u.instructions));
    return parts.length > 0 ? { instructions: parts.join('\n\n') } : {};
  }

  private authorizeContext(ctx: CallContext, mcp: AuthorizeContext['mcp']): AuthorizeContext {
    return {
      ...(ctx.claims ? { jwt: ctx.claims } : {}),
      ...(ctx.apiKey ? { apiKey: ctx.apiKey } : {}),
      request: ctx.request,
      mcp,
    };
  }

  private async list(kind: ListKind, req: JsonRpcRequest, ctx: CallContext): Promise<JsonRpcResponse> {
    const spec = lists[kind];
    const cursor = req.params?.cursor;
    let pending: Record<string, string | undefined>;
    if (typeof cursor === 'string') {
      const decoded = decodeCursor(cursor);
      if (!decoded) return rpcError(req.id, InvalidParams, 'Invalid cursor');
      pending = decoded;
    } else {
      pending = this.catalog.firstPages(kind);
    }
    let page: { items: Item[]; next: Record<string, string> };
    try {
      page = await this.catalog.fetchPage(kind, pending);
    } catch (err) {
      if (err instanceof SessionGone) throw err;
      return isRpcError(err) ? rpcError(req.id, err.code, messageOf(err)) : internalError(req.id, err, this.log);
    }
    const items = this.opts.authorize ? page.items.filter((i) => this.listedItemAllowed(kind, i, ctx)) : page.items;
    const nextCursor = encodeCursor(page.next);
    return { jsonrpc: '2.0', id: req.id, result: { [spec.key]: items, ...(nextCursor ? { nextCursor } : {}) } };
  }

  private listedItemAllowed(kind: ListKind, item: Item, ctx: CallContext): boolean {
    const authorize = this.opts.authorize;
    if (!authorize) return true;
    if (kind === 'tools')
      return authorize(this.authorizeContext(ctx, { method: 'tools/call', tool: String(item.name) }));
    if (kind === 'prompts')
      return authorize(this.authorizeContext(ctx, { method: 'prompts/get', prompt: String(item.name) }));
    if (kind === 'resources')
      return authorize(this.authorizeContext(ctx, { method: 'resources/read', resource: String(item.uri) }));
    return true;
  }

  private async callNamed(
    kind: 'tools' | 'prompts',
    req: JsonRpcRequest,
    ctx: CallContext,
  ): Promise<JsonRpcResponse | undefined> {
    const p = req.params ?? {};
    const exposed = typeof p.name === 'string' ? p.name : '';
    let found = this.catalog.resolveNamedNow(kind, exposed);
    if (found === 'list') {
      try {
        found = await this.catalog.resolveNamed(kind, exposed);
      } catch (err) {
        if (err instanceof SessionGone) throw err;
        return isRpcError(err) ? rpcError(req.id, InternalError, messageOf(err)) : internalError(req.id, err, this.log);
      }
    }
    if (!found) {
      // A prefixed name of a target passive health left out: say so rather than that the name is unknown.
      const owner = this.catalog.prefixOwner(exposed);
      const ejected = owner !== undefined && this.opts.health?.ejected(owner) ? this.opts.health : undefined;
      if (ejected && owner !== undefined) {
        const err = ejected.ejectedError(owner);
        return rpcError(req.id, err.code, `target ${owner}: ${messageOf(err)}`, err.data);
      }
      return rpcError(req.id, InvalidParams, `Unknown ${kind === 'tools' ? 'tool' : 'prompt'}: ${exposed}`);
    }
    const out = await this.forward(found.up, req, found.name === exposed ? p : { ...p, name: found.name }, ctx);
    // Counted by the target's own tool names only: a client cannot mint label values.
    if (kind === 'tools' && out) this.opts.onToolCall?.(found.up.name, found.name, toolCallOutcome(out));
    return out;
  }

  private async complete(req: JsonRpcRequest, ctx: CallContext): Promise<JsonRpcResponse | undefined> {
    const p = req.params ?? {};
    const ref = isObject(p.ref) ? p.ref : {};
    if (ref.type === 'ref/prompt') {
      const found = await this.catalog.resolveNamed('prompts', String(ref.name ?? '')).catch((err: unknown) => {
        if (err instanceof SessionGone) throw err;
        return undefined;
      });
      if (!found) return rpcError(req.id, InvalidParams, `Unknown prompt: ${String(ref.name ?? '')}`);
      return this.forward(found.up, req, { ...p, ref: { ...ref, name: found.name } }, ctx);
    }
    const up = await this.catalog.resolveResource(String(ref.uri ?? ''));
    if (!up) return rpcError(req.id, resourceNotFound, `Resource not found: ${String(ref.uri ?? '')}`);
    return this.forward(up, req, p, ctx);
  }

  /** A 2026 client's retry answering a 2025 target's requests: continued where the target holds the call. */
  private continueInput(
    bridge: InputBridge,
    req: JsonRpcRequest,
    ctx: CallContext,
  ): Promise<JsonRpcResponse | undefined> {
    const c = bridge.open(req, subjectOf(ctx.claims));
    if (typeof c === 'string') return Promise.resolve(rpcError(req.id, InvalidParams, c));
    const up = c.held !== undefined ? bridge.heldUpstream(c) : this.upstreams.get(c.target);
    if (!up)
      return Promise.resolve(
        rpcError(req.id, InternalError, c.held !== undefined ? heldElsewhere : `target ${c.target} is not connected`),
      );
    return this.forward(up, req, req.params ?? {}, ctx, c);
  }

  /** mcp guardrails see a client's answer to a target's request (given on a retry) before the target does. */
  private async guardAnswer(
    target: string,
    ask: { id: string | number; method: string; params?: Record<string, unknown> },
    answer: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const guardrails = this.opts.guardrails;
    if (!guardrails) return answer;
    const req: JsonRpcRequest = { jsonrpc: '2.0', ...ask };
    const out = await guardrails.aroundServerRequest(req, target, this.lastCall ?? noCall, this, () =>
      Promise.resolve(answer),
    );
    if ('error' in out) throw new RpcError(out.error.code, out.error.message, out.error.data);
    return out.result;
  }

  private async forward(
    found: Upstream,
    req: JsonRpcRequest,
    sent: Record<string, unknown>,
    ctx: CallContext,
    continued?: Continuation,
  ): Promise<JsonRpcResponse | undefined> {
    const gate = targetDenial(found.name); // the target's own backend.extAuth decides before it is sent anything
    const denied = gate && (await gate);
    if (denied) return deniedCall(req.id, denied);
    let up = found;
    let params = sent;
    // A 2026 client's retry of a multi round-trip request: the state goes back to the target that issued it.
    if (this.opts.modern && typeof sent.requestState === 'string' && !continued) {
      const continued = this.continuation(up.name, sent.requestState);
      if (typeof continued === 'string') return rpcError(req.id, InvalidParams, continued);
      params = { ...sent, ...continued };
    }
    if (!up.alive) {
      try {
        up = (await this.recovery.live(up.name)) ?? up;
      } catch (err) {
        if (err instanceof SessionGone) throw err;
      }
      if (!up.alive) return rpcError(req.id, InternalError, `target ${up.name} is not connected`);
    }
    const cancel = new CallCancel();
    this.inflight.set(req.id, cancel);
    const sink = ctx.sink ?? this.standalone;
    const sinks = this.activeSinks.get(up.name) ?? [];
    if (sink) {
      sinks.push(sink);
      this.activeSinks.set(up.name, sinks);
    }
    const meta = isObject(params._meta) ? params._meta : undefined;
    const token = meta?.progressToken;
    const onprogress =
      token !== undefined && sink
        ? (progress: Record<string, unknown>) => {
            sink.send({
              jsonrpc: '2.0',
              method: 'notifications/progress',
              params: { ...progress, progressToken: token },
            });
          }
        : undefined;
    try {
      const opts = {
        cancel,
        timeoutMs: this.callTimeoutMs(up.name),
        onprogress,
        ...(ctx.trace ? { headers: ctx.trace } : {}),
      };
      const bridge = this.bridge;
      let result = continued
        ? await bridge!.resume(up, continued, params, opts)
        : bridge?.bridges(up)
          ? await bridge.call(up, req.method, params, req.params ?? {}, subjectOf(ctx.claims), opts)
          : await up.call(req.method, params, opts);
      if (isInputRequired(result) && !bridge?.bridges(up)) {
        // A 2026 client answers the target's questions itself and retries; a 2025 client is asked by the proxy.
        if (this.opts.modern) {
          if (typeof result.requestState === 'string')
            result = { ...result, requestState: wrapRequestState(up.name, result.requestState) };
        } else result = await this.fulfil(up, req.method, params, result, opts);
      }
      return { jsonrpc: '2.0', id: req.id, result: this.opts.modern ? result : toLegacyResult(result) };
    } catch (err) {
      if (err instanceof SessionGone) throw err;
      if (cancel.aborted) return undefined; // cancelled: the spec says no response
      if (!isRpcError(err) || err.code === -32000) this.opts.onTargetFailure(up.name, req.method);
      if (isRpcError(err)) return rpcError(req.id, err.code, `target ${up.name}: ${messageOf(err)}`, err.data);
      const text = targetFailureText(err);
      if (text !== undefined) return rpcError(req.id, InternalError, `target ${up.name}: ${text}`);
      return internalError(req.id, err, this.log.child({ target: up.name }));
    } finally {
      this.inflight.delete(req.id);
      if (sink) sinks.splice(sinks.indexOf(sink), 1);
    }
  }

  /** The target that issued a 2026 client's requestState, if the session has it. */
  private issuerOf(p: Record<string, unknown>): Upstream | undefined {
    if (!this.opts.modern || typeof p.requestState !== 'string') return undefined;
    const issuer = unwrapRequestState(p.requestState)?.target;
    return issuer === undefined ? undefined : this.upstreams.get(issuer);
  }

  /** A retry's `requestState` as the target gave it, or why it is refused (issued for another target, or not by the proxy). */
  private continuation(target: string, wrapped: string): { requestState: string } | string {
    const s = unwrapRequestState(wrapped);
    if (!s) return 'Invalid params: requestState was not issued by this gateway';
    if (s.target !== target) return `Invalid params: requestState belongs to another target than ${target}`;
    return { requestState: s.state };
  }

  /**
   * A 2026 target asked a 2025 client for input (multi round-trip): the proxy asks the client as that
   * target's own server-to-client requests (guardrails see them as they would), then retries the call with
   * the answers and the target's requestState, as many rounds as the target needs up to maxInputRounds.
   */
  private async fulfil(
    up: Upstream,
    method: string,
    params: Record<string, unknown>,
    first: Record<string, unknown>,
    opts: Parameters<Upstream['call']>[2],
  ): Promise<Record<string, unknown>> {
    let result = first;
    for (let round = 0; isInputRequired(result); round++) {
      if (round >= maxInputRounds)
        throw new RpcError(InternalError, `asked for input more than ${maxInputRounds} times in one call`);
      const asks = isObject(result.inputRequests) ? result.inputRequests : {};
      const answers: Record<string, unknown> = {};
      for (const [key, ask] of Object.entries(asks)) {
        if (!isObject(ask) || typeof ask.method !== 'string') continue;
        const r = {
          jsonrpc: '2.0' as const,
          id: key,
          method: ask.method,
          ...(isObject(ask.params) ? { params: ask.params } : {}),
        };
        answers[key] = await this.fromTarget(up.name, r, opts.cancel?.signal ?? new AbortController().signal);
      }
      const state = typeof result.requestState === 'string' ? { requestState: result.requestState } : {};
      result = await up.call(method, { ...params, inputResponses: answers, ...state }, opts);
    }
    return result;
  }

  private fromUpstream(target: string, n: Notification): void {
    if (this.listener) {
      this.listener.deliver(target, n);
      return;
    }
    if (n.method.endsWith('/list_changed')) {
      const kind = n.method.split('/')[1];
      if (kind === 'tools' || kind === 'prompts') this.catalog.forget(kind);
    }
    this.standalone?.send({
      jsonrpc: '2.0',
      method: n.method,
      ...(n.params ? { params: n.params as Record<string, unknown> } : {}),
    });
    this.log.debug({ target, method: n.method }, 'notification from target');
  }

  /** mcp guardrails see a target's request before the client does, and the client's result before the target does. */
  private async fromTarget(
    target: string,
    r: JSONRPCRequest,
    signal: AbortSignal,
    eventId?: string,
  ): Promise<Record<string, unknown>> {
    const guardrails = this.opts.guardrails;
    if (!guardrails) return this.askClient(target, r, signal, eventId);
    const req: JsonRpcRequest = {
      jsonrpc: '2.0',
      id: r.id,
      method: r.method,
      ...(r.params ? { params: r.params as Record<string, unknown> } : {}),
    };
    const out = await guardrails.aroundServerRequest(req, target, this.lastCall ?? noCall, this, (params) =>
      this.askClient(target, { ...r, params }, signal, eventId),
    );
    // Not an McpError: the SDK would prefix the processor's message; the target gets code, message and data as given.
    if ('error' in out)
      throw Object.assign(new Error(out.error.message), {
        code: out.error.code,
        ...(out.error.data !== undefined ? { data: out.error.data } : {}),
      });
    return out.result;
  }

  /** Passes a server-to-client request on: on the stream of a call in flight to that target, else the GET stream. */
  private askClient(
    target: string,
    r: JSONRPCRequest,
    signal: AbortSignal,
    eventId?: string,
  ): Promise<Record<string, unknown>> {
    // A 2026 client is asked in the call's answer (input_required), not by a request of its own.
    if (this.bridge) return this.bridge.ask(target, r, signal, eventId);
    const sink = this.activeSinks.get(target)?.at(-1) ?? this.standalone;
    const id = `gw-${this.nextClientId++}`;
    return new Promise((resolve, reject) => {
      if (
        !sink ||
        !sink.send({
          jsonrpc: '2.0',
          id,
          method: r.method,
          ...(r.params ? { params: r.params as Record<string, unknown> } : {}),
        })
      ) {
        reject(new RpcError(InternalError, 'the client has no open stream for server requests'));
        return;
      }
      this.clientPending.set(id, { resolve, reject });
      signal.addEventListener(
        'abort',
        () => {
          if (!this.clientPending.delete(id)) return;
          sink.send({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: id, reason: 'cancelled by target' },
          });
          reject(new RpcError(InternalError, 'cancelled'));
        },
        { once: true },
      );
    });
  }
}

/** Context for guardrails before the session's first client request: no claims, no headers. */
const noCall: CallContext = { claims: null, request: { method: 'POST', path: '', headers: {} }, sink: undefined };

function toolCallOutcome(out: JsonRpcResponse): ToolCallOutcome {
  if ('error' in out) return 'error';
  return isObject(out.result) && out.result.isError === true ? 'tool_error' : 'ok';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * What route authorization sees of an MCP request: every method is checked (the seed: a request no rule
 * allows gets 403), and the tool, prompt or resource it names, if any, so rules reading those apply.
 */
export function mcpContextOf(req: JsonRpcRequest): AuthorizeContext['mcp'] {
  const p = req.params ?? {};
  const mcp: AuthorizeContext['mcp'] = { method: req.method };
  if (req.method === 'tools/call') mcp.tool = String(p.name ?? '');
  else if (req.method === 'prompts/get') mcp.prompt = String(p.name ?? '');
  else if (
    req.method === 'resources/read' ||
    req.method === 'resources/subscribe' ||
    req.method === 'resources/unsubscribe'
  )
    mcp.resource = String(p.uri ?? '');
  else if (req.method === 'completion/complete') {
    const ref = isObject(p.ref) ? p.ref : {};
    if (ref.type === 'ref/prompt') mcp.prompt = String(ref.name ?? '');
    else if (ref.type === 'ref/resource') mcp.resource = String(ref.uri ?? '');
  }
  return mcp;
}
