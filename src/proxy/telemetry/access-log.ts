// GwPolicy `frontend.accessLog` compiled once per snapshot: the fields of one line (short names, or the
// OpenTelemetry semantic-convention names with the `Otel` preset), the CEL `filter` that decides whether a
// line is written, `attributes` added (CEL) and removed, and where a line goes: pino, plus OTLP when set.
import type { Logger } from 'pino';
import type { Context } from '@opentelemetry/api';
import { SeverityNumber, type AnyValueMap, type Logger as OtelLogger } from '@opentelemetry/api-logs';
import type { AccessLog } from '../../ir/types.js';
import type { AccessTail } from './access-tail.js';
import { compileCel, expressionVariables, holds, type CelBindings, type CompiledCel } from '../policy/cel/env.js';

/** What the proxy knows about one finished request. */
export interface RequestFacts {
  method: string;
  path: string;
  host: string;
  status: number;
  durationMs: number;
  listener: string;
  route?: string;
  client?: string;
  subject?: string;
  traceId?: string;
  mcp?: { method: string; tool?: string; session?: string };
  /** An A2A call (src/proxy/a2a/call.ts): method under its A2A 1.0 name, and the ids it names. */
  a2a?: { method: string; taskId: string; contextId: string };
  llm?: {
    provider?: string;
    model?: string;
    inputTokens?: number;
    outputTokens?: number;
    /** Input tokens read from / written to the vendor's prompt cache (part of inputTokens). */
    cacheReadTokens?: number;
    cacheWriteTokens?: number;
  };
}

type Names = Record<
  | 'method'
  | 'path'
  | 'status'
  | 'duration'
  | 'listener'
  | 'route'
  | 'client'
  | 'subject'
  | 'traceId'
  | 'mcpMethod'
  | 'mcpTool'
  | 'mcpSession'
  | 'llmProvider'
  | 'llmModel'
  | 'inputTokens'
  | 'outputTokens'
  | 'cacheReadTokens'
  | 'cacheWriteTokens',
  string
>;

const shortNames: Names = {
  method: 'method',
  path: 'path',
  status: 'status',
  duration: 'duration_ms',
  listener: 'listener',
  route: 'route',
  client: 'client',
  subject: 'subject',
  traceId: 'trace_id',
  mcpMethod: 'mcp_method',
  mcpTool: 'mcp_tool',
  mcpSession: 'mcp_session',
  llmProvider: 'llm_provider',
  llmModel: 'llm_model',
  inputTokens: 'input_tokens',
  outputTokens: 'output_tokens',
  cacheReadTokens: 'cache_read_tokens',
  cacheWriteTokens: 'cache_write_tokens',
};

/** The `Otel` preset: OpenTelemetry HTTP, GenAI and MCP semantic-convention attribute names. */
const otelNames: Names = {
  method: 'http.request.method',
  path: 'url.path',
  status: 'http.response.status_code',
  duration: 'gw.duration_ms',
  listener: 'gw.listener',
  route: 'gw.route',
  client: 'client.address',
  subject: 'enduser.id',
  traceId: 'trace_id',
  mcpMethod: 'mcp.method.name',
  mcpTool: 'gen_ai.tool.name',
  mcpSession: 'mcp.session.id',
  llmProvider: 'gen_ai.provider.name',
  llmModel: 'gen_ai.request.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheWriteTokens: 'gen_ai.usage.cache_creation.input_tokens',
};

/** The line's fields before `attributes` apply; unknown facts are left out. */
export function accessLogFields(f: RequestFacts, otel: boolean): Record<string, string | number> {
  const n = otel ? otelNames : shortNames;
  const all: [string, string | number | undefined][] = [
    [n.method, f.method],
    [n.path, f.path],
    [n.status, f.status],
    [n.duration, Math.round(f.durationMs * 1000) / 1000],
    [n.listener, f.listener],
    [n.route, f.route],
    [n.client, f.client],
    [n.subject, f.subject],
    [n.traceId, f.traceId],
    [n.mcpMethod, f.mcp?.method],
    [n.mcpTool, f.mcp?.tool],
    [n.mcpSession, f.mcp?.session],
    [n.llmProvider, f.llm?.provider],
    [n.llmModel, f.llm?.model],
    [n.inputTokens, f.llm?.inputTokens],
    [n.outputTokens, f.llm?.outputTokens],
    [n.cacheReadTokens, f.llm?.cacheReadTokens],
    [n.cacheWriteTokens, f.llm?.cacheWriteTokens],
  ];
  return Object.fromEntries(all.filter((e): e is [string, string | number] => e[1] !== undefined));
}

/** What `filter` and `attributes.add` expressions see (docs/telemetry.md). */
export function accessLogBindings(
  f: RequestFacts,
  headers: Record<string, string>,
  claims: Record<string, unknown> | undefined,
  said: { extProc?: Record<string, unknown>; extauthz?: Record<string, unknown> } = {},
): CelBindings {
  return {
    ...(said.extauthz ? { extauthz: said.extauthz } : {}),
    request: { method: f.method, path: f.path, host: f.host, headers },
    response: { code: f.status, durationMs: f.durationMs },
    ...(claims ? { jwt: claims } : {}),
    mcp: { method: f.mcp?.method ?? '', tool: f.mcp?.tool ?? '', session: f.mcp?.session ?? '' },
    a2a: { method: f.a2a?.method ?? '', taskId: f.a2a?.taskId ?? '', contextId: f.a2a?.contextId ?? '' },
    llmRequest: { provider: f.llm?.provider ?? '', model: f.llm?.model ?? '' },
    ...(said.extProc ? { extProc: said.extProc } : {}),
  };
}

/** A CEL result as a log field value; undefined when it failed (the field is left out). */
function plain(v: unknown): string | number | boolean | undefined {
  if (v instanceof Error) return undefined;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  return v === null || v === undefined ? undefined : String(v);
}

export interface AccessLogLine {
  facts: RequestFacts;
  headers: Record<string, string>;
  claims?: Record<string, unknown>;
  /** The external processor's dynamic metadata (CEL `extProc`). */
  extProc?: Record<string, unknown>;
  /** What the external authorization service said (CEL `extauthz`). */
  extauthz?: Record<string, unknown>;
  /** The request's server span, so OTLP records carry its trace. */
  traceContext?: Context;
}

export class AccessLogWriter {
  private readonly filter?: CompiledCel;
  private readonly add: { name: string; cel: CompiledCel }[];
  private readonly remove: ReadonlySet<string>;

  constructor(
    private readonly cfg: AccessLog,
    private readonly log: Logger,
    private readonly otlp: OtelLogger | undefined,
    /** The web UI's live tail: gets each written line while someone watches it. */
    private readonly tail?: AccessTail,
  ) {
    // The translator refused what does not compile; the proxy compiles only what reached it.
    if (cfg.filter) this.filter = compileCel(cfg.filter, expressionVariables.accessLog);
    this.add = cfg.add.map((a) => ({ name: a.name, cel: compileCel(a.expression, expressionVariables.accessLog) }));
    this.remove = new Set(cfg.remove);
  }

  write(line: AccessLogLine): void {
    const needsCel = this.filter !== undefined || this.add.length > 0;
    const bindings = needsCel ? accessLogBindings(line.facts, line.headers, line.claims, line) : {};
    if (this.filter && !holds(this.filter, bindings)) return;
    const fields: Record<string, string | number | boolean> = accessLogFields(line.facts, this.cfg.otelPreset);
    for (const a of this.add) {
      const v = plain(a.cel.evaluate(bindings));
      if (v !== undefined) fields[a.name] = v;
    }
    for (const name of this.remove) delete fields[name];
    this.log.info(fields, 'access');
    if (this.tail?.watched) this.tail.push(line.facts.listener, fields);
    this.otlp?.emit({
      severityNumber: SeverityNumber.INFO,
      severityText: 'INFO',
      body: 'access',
      attributes: fields as AnyValueMap,
      ...(line.traceContext ? { context: line.traceContext } : {}),
    });
  }
}
