// One request's telemetry: its server span (child of the client's `traceparent`, if any), the child spans of
// what the proxy does for it (external authorization, the upstream forward, the LLM call, the MCP call), the
// `traceparent` its upstream request carries, and its access-log line, written once the response closes.
// Listeners with neither tracing nor an access log get no RequestTelemetry: the hot path pays nothing.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  defaultTextMapSetter,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapPropagator,
  type Tracer,
} from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_SESSION_ID,
  ATTR_RPC_JSONRPC_REQUEST_ID,
  ATTR_RPC_JSONRPC_VERSION,
  ATTR_RPC_METHOD,
  ATTR_RPC_METHOD_ORIGINAL,
  ATTR_RPC_SYSTEM_NAME,
  ATTR_URL_PATH,
} from './semconv.js';
import { a2aMethods } from '../a2a/call.js';
import { accessLogBindings, type AccessLogWriter, type RequestFacts } from './access-log.js';
import type { MetricLabels } from './metric-labels.js';

const byResponse = new WeakMap<ServerResponse, RequestTelemetry>();

/** The telemetry of the request this response answers, for rooms that learn facts deep inside (MCP, LLM). */
export function telemetryOf(res: ServerResponse): RequestTelemetry | undefined {
  return byResponse.get(res);
}

/** Where a listener's spans go and how their context crosses the wire (the W3C `traceparent`). */
export interface Tracing {
  tracer: Tracer;
  propagator: TextMapPropagator;
}

/** A listener's compiled `frontend.accessLog` / `frontend.tracing` / `frontend.metrics`. */
export class ListenerTelemetry {
  constructor(
    readonly listener: string,
    private readonly tracing: Tracing | undefined,
    private readonly accessLog: AccessLogWriter | undefined,
    private readonly labels?: MetricLabels,
  ) {}

  start(req: IncomingMessage, res: ServerResponse, route: string | undefined, path: string): RequestTelemetry {
    const t = new RequestTelemetry(req, this.listener, route, path, this.tracing, this.accessLog, this.labels);
    byResponse.set(res, t);
    return t;
  }
}

/** A traced call: the headers that carry its span's context, and the end of the span with what came of it. */
export interface TracedCall {
  headers: Record<string, string>;
  end(outcome: Attributes, failed?: boolean): void;
}

export class RequestTelemetry {
  readonly facts: RequestFacts;
  private readonly span?: Span;
  private readonly children: Span[] = [];
  private readonly start = process.hrtime.bigint();
  private claims?: Record<string, unknown>;
  /** What the external processor answered as dynamic metadata (filled while the exchange goes on). */
  private extProc?: Record<string, unknown>;
  private extauthz?: Record<string, unknown>;
  private llmSpan?: Span;
  private mcpSpan?: Span;
  /** The RPC attributes of an A2A call, for the forward's span. */
  private rpc?: Attributes;
  /** The forward span's name on an A2A call: the method, or `jsonrpc` for one A2A does not define. */
  private a2aSpanName?: string;

  constructor(
    private readonly req: IncomingMessage,
    listener: string,
    route: string | undefined,
    path: string,
    private readonly tracing: Tracing | undefined,
    private readonly accessLog: AccessLogWriter | undefined,
    private readonly labels?: MetricLabels,
  ) {
    const method = req.method ?? 'GET';
    this.facts = {
      method,
      path,
      host: (req.headers.host ?? '').replace(/:\d+$/, ''),
      status: 0,
      durationMs: 0,
      listener,
      ...(route ? { route } : {}),
      ...(req.socket.remoteAddress ? { client: req.socket.remoteAddress } : {}),
    };
    if (tracing) {
      const parent = tracing.propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
      const attributes: Attributes = {
        [ATTR_HTTP_REQUEST_METHOD]: method,
        [ATTR_URL_PATH]: path,
        'gw.listener': listener,
      };
      if (route) attributes['gw.route'] = route;
      if (this.facts.client) attributes[ATTR_CLIENT_ADDRESS] = this.facts.client;
      this.span = tracing.tracer.startSpan(
        route ? `${method} ${route}` : method,
        { kind: SpanKind.SERVER, attributes },
        parent,
      );
      this.facts.traceId = this.span.spanContext().traceId;
    }
  }

  /** A child span of the server span (ended with the request unless ended before); undefined when tracing is off. */
  child(name: string, kind: SpanKind, attributes: Attributes = {}): Span | undefined {
    if (!this.tracing || !this.span) return undefined;
    const span = this.tracing.tracer.startSpan(name, { kind, attributes }, trace.setSpan(ROOT_CONTEXT, this.span));
    this.children.push(span);
    return span;
  }

  /**
   * A call the proxy makes for this request (external authorization, a guardrail webhook): a client span
   * whose `traceparent` the call carries; undefined when tracing is off.
   */
  call(name: string, attributes: Attributes = {}): TracedCall | undefined {
    const span = this.child(name, SpanKind.CLIENT, attributes);
    if (!span) return undefined;
    return {
      headers: this.traceHeaders(span),
      end: (outcome, failed = false) => {
        span.setAttributes(outcome);
        if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      },
    };
  }

  /**
   * An A2A call (src/proxy/a2a): the RPC semantic conventions on the server span and on the forward's client
   * span, which is named for the method (`SendMessage`) as the conventions name RPC spans. A method A2A does not
   * define is `_OTHER` (the name as sent goes in `rpc.method_original`) and its span is named `jsonrpc`: a client
   * must not mint span names.
   */
  a2a(facts: { method: string; rpcMethod: string; taskId: string; contextId: string }, id: string | number): void {
    const { method, rpcMethod, taskId, contextId } = facts;
    this.facts.a2a = { method, taskId, contextId };
    const known = a2aMethods.has(method);
    this.a2aSpanName = known ? method : 'jsonrpc';
    this.rpc = {
      [ATTR_RPC_SYSTEM_NAME]: 'jsonrpc',
      [ATTR_RPC_JSONRPC_VERSION]: '2.0',
      [ATTR_RPC_METHOD]: known ? method : '_OTHER',
      ...(rpcMethod !== method || !known ? { [ATTR_RPC_METHOD_ORIGINAL]: rpcMethod } : {}),
      [ATTR_RPC_JSONRPC_REQUEST_ID]: String(id),
      ...(taskId ? { 'gw.a2a.task_id': taskId } : {}),
      ...(contextId ? { 'gw.a2a.context_id': contextId } : {}),
    };
    this.span?.setAttributes(this.rpc);
  }

  /** The upstream forward: a client span whose context the upstream request carries as `traceparent`. */
  forward(headers: IncomingMessage['headers']): void {
    const name = this.a2aSpanName ?? this.facts.method;
    const span = this.child(name, SpanKind.CLIENT, { [ATTR_HTTP_REQUEST_METHOD]: this.facts.method, ...this.rpc });
    if (!span) return;
    delete headers.tracestate;
    this.tracing?.propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter);
  }

  /** What the external authorization service said about the request: CEL `extauthz` of the access log. */
  authorizedExternally(metadata: Record<string, unknown>): void {
    this.extauthz = metadata;
  }

  authenticated(claims: Record<string, unknown> | null): void {
    if (!claims) return;
    this.claims = claims;
    if (typeof claims.sub === 'string') this.facts.subject = claims.sub;
  }

  /** The external processor's dynamic metadata: CEL `extProc` of the access log once the request is done. */
  processed(metadata: Record<string, unknown>): void {
    this.extProc = metadata;
  }

  /** The MCP call: the first JSON-RPC request of the POST names the method and tool, prompt or resource. */
  mcp(method: string, params: unknown): void {
    const p = (params && typeof params === 'object' ? params : {}) as Record<string, unknown>;
    const name = typeof p.name === 'string' ? p.name : typeof p.uri === 'string' ? p.uri : undefined;
    const session = sessionRef(this.req.headers['mcp-session-id']);
    this.facts.mcp = { method, ...(name ? { tool: name } : {}), ...(session ? { session } : {}) };
    const attributes: Attributes = { [ATTR_MCP_METHOD_NAME]: method };
    if (name && method === 'tools/call') attributes[ATTR_GEN_AI_TOOL_NAME] = name;
    else if (name) attributes['gw.mcp.target_name'] = name;
    if (session) attributes[ATTR_MCP_SESSION_ID] = session;
    this.mcpSpan = this.child(name ? `${method} ${name}` : method, SpanKind.CLIENT, attributes);
  }

  /**
   * The trace context an upstream call made for this request carries (`traceparent`): the MCP or LLM
   * call's span, else the server span; undefined when tracing is off.
   */
  upstreamHeaders(): Record<string, string> | undefined {
    const span = this.mcpSpan ?? this.llmSpan ?? this.span;
    return span ? this.traceHeaders(span) : undefined;
  }

  /** The W3C `traceparent` a call made within `span` carries. */
  private traceHeaders(span: Span): Record<string, string> {
    const headers: Record<string, string> = {};
    this.tracing?.propagator.inject(traceContextOf(span), headers, defaultTextMapSetter);
    return headers;
  }

  /** The LLM call starts: a GenAI client span, named once the provider and model are known. */
  llmCall(): void {
    this.llmSpan = this.child('chat', SpanKind.CLIENT, { [ATTR_GEN_AI_OPERATION_NAME]: 'chat' });
  }

  llm(provider: string, model: string): void {
    this.facts.llm = { ...this.facts.llm, provider, model };
    this.llmSpan?.updateName(`chat ${model}`);
    this.llmSpan?.setAttributes({ [ATTR_GEN_AI_PROVIDER_NAME]: provider, [ATTR_GEN_AI_REQUEST_MODEL]: model });
  }

  /** An answer's token usage; the cache counts (part of `input`) only when the vendor reported some. */
  tokens(u: { input: number; output: number; cacheRead?: number; cacheWrite?: number }): void {
    const { input, output } = u;
    this.facts.llm = {
      ...this.facts.llm,
      inputTokens: input,
      outputTokens: output,
      ...(u.cacheRead ? { cacheReadTokens: u.cacheRead } : {}),
      ...(u.cacheWrite ? { cacheWriteTokens: u.cacheWrite } : {}),
    };
    this.llmSpan?.setAttributes({ [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: input, [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: output });
  }

  /** Called by the runtime's one `close` listener of the response (a listener more per request would pile up). */
  end(res: ServerResponse): void {
    this.facts.status = res.statusCode;
    this.facts.durationMs = Number(process.hrtime.bigint() - this.start) / 1e6;
    if (this.facts.mcp && !this.facts.mcp.session) {
      const s = sessionRef(res.getHeader('mcp-session-id'));
      if (s) this.facts.mcp.session = s;
    }
    const failed = res.statusCode >= 500;
    for (const c of this.children.filter((s) => s.isRecording())) {
      if (failed) c.setStatus({ code: SpanStatusCode.ERROR });
      c.end();
    }
    if (this.span) {
      this.span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.statusCode);
      if (failed) this.span.setStatus({ code: SpanStatusCode.ERROR });
      this.span.end();
    }
    this.accessLog?.write({
      facts: this.facts,
      headers: flat(this.req.headers),
      ...(this.claims ? { claims: this.claims } : {}),
      ...(this.extProc ? { extProc: this.extProc } : {}),
      ...(this.extauthz ? { extauthz: this.extauthz } : {}),
      ...(this.span ? { traceContext: traceContextOf(this.span) } : {}),
    });
  }

  /** What the external services said about this request (CEL `extauthz`, `extProc`). */
  private said(): { extProc?: Record<string, unknown>; extauthz?: Record<string, unknown> } {
    return {
      ...(this.extProc ? { extProc: this.extProc } : {}),
      ...(this.extauthz ? { extauthz: this.extauthz } : {}),
    };
  }

  /**
   * The labels the listener adds to the request metrics, valued from this request's facts; call after `end`
   * (the response's status and duration are among them). Undefined when the listener adds none.
   */
  metricLabels(): Record<string, string> | undefined {
    return this.labels?.values(accessLogBindings(this.facts, flat(this.req.headers), this.claims, this.said()));
  }
}

/** A session id resumes a session, so it is a credential: logs and spans carry a digest that correlates instead. */
function sessionRef(id: unknown): string | undefined {
  return typeof id === 'string' && id !== '' ? createHash('sha256').update(id).digest('hex').slice(0, 16) : undefined;
}

const traceContextOf = (span: Span): Context => trace.setSpan(ROOT_CONTEXT, span);

/** Headers that carry credentials: an access-log expression never sees them, so no line can print a token. */
const credentialHeaders = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key', 'mcp-session-id']);

function flat(h: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h))
    if (v !== undefined && !credentialHeaders.has(k)) out[k] = Array.isArray(v) ? v.join(',') : v;
  return out;
}
