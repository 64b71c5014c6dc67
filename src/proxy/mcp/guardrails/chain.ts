// The guardrail chain of one route → MCP backend edge: for each client request, processors whose
// method table selects the request phase see the params before the call is forwarded, and those
// selecting the response phase see the result before it returns. A target's requests to the client
// (sampling, elicitation, roots) and their results, and the client's notifications, pass the same way.
// In list order; the first rejection stops the chain and becomes a JSON-RPC error for the request's id.
import type { Logger } from 'pino';
import type { McpGuardrails } from '../../../ir/types.js';
import { type Id, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse, rpcError } from '../jsonrpc.js';
import { defaultTimeoutMs, processorClient, safeUrl, type ProcessorClient } from './client.js';
import {
  GuardrailUnavailable,
  contractVersion,
  type ContractPhase,
  type ProcessorRequest,
  type RpcErrorBody,
} from './contract.js';
import { forwardedHeaders, headerRules, type HeaderRules } from './headers.js';
import { compileMethodTable, runsIn, type MessageKind, type MethodTable, type Phase } from './method-match.js';
import { compileMetadata, evaluateMetadata, type MetadataPlan } from './metadata.js';

/** What a processor may learn about the client's call (a session's CallContext fits). */
export interface GuardrailCall {
  claims: Record<string, unknown> | null;
  readonly request: { method: string; path: string; headers: Record<string, string> };
}

type SessionInfo = { id: string; log: Logger };

export interface McpGuardrailChain {
  /** Runs the request phase, then `next` (the session's normal handling), then the response phase. */
  around(
    req: JsonRpcRequest,
    call: GuardrailCall,
    session: SessionInfo,
    next: (req: JsonRpcRequest) => Promise<JsonRpcResponse | undefined>,
  ): Promise<JsonRpcResponse | undefined>;
  /**
   * A target's request to the client: the serverRequest phase, then `next` (passing it to the client; its
   * rejections, such as the client's error answer, pass through), then the serverResponse phase on the result.
   */
  aroundServerRequest(
    req: JsonRpcRequest,
    target: string,
    call: GuardrailCall,
    session: SessionInfo,
    next: (params: Record<string, unknown>) => Promise<Record<string, unknown>>,
  ): Promise<{ result: Record<string, unknown> } | { error: RpcErrorBody }>;
  /** A client's notification as the proxy should act on it, or undefined when a processor dropped it. */
  notification(
    n: JsonRpcNotification,
    call: GuardrailCall,
    session: SessionInfo,
  ): Promise<JsonRpcNotification | undefined>;
}

export interface ChainOptions {
  /** Per processor call; default 10 s. */
  timeoutMs?: number;
}

interface Processor {
  /** 1-based, as error messages and logs name it. */
  no: number;
  source: string;
  table: MethodTable;
  /** Set when the processor cannot run: every method it matches is rejected. */
  problem: string;
  failOpen: boolean;
  metadata: MetadataPlan;
  headers: HeaderRules;
  url: string;
  client: ProcessorClient | undefined;
}

type Step =
  { kind: 'pass' } | { kind: 'modify'; value: Record<string, unknown> } | { kind: 'reject'; error: RpcErrorBody };

// Liveness checks carry no content; sending each keep-alive ping to every `*` processor only adds load.
// `notifications/initialized` and `server/discover` (a 2026 client's initialize) belong to the handshake,
// which is not guarded (docs/mcp-guardrails.md).
const neverGuarded = new Set(['ping', 'notifications/initialized', 'server/discover']);

/** One message as processors see it; `value` is what a modify verdict replaces. */
interface Message {
  method: string;
  id?: Id;
  target?: string;
  params: Record<string, unknown>;
  result?: Record<string, unknown>;
}
type Active = { p: Processor; phase: Phase }[];

/** Never throws: a processor that cannot be compiled fails closed on every method and is logged once here. */
export function compileGuardrails(ir: McpGuardrails, log: Logger, opts: ChainOptions = {}): McpGuardrailChain {
  const processors = ir.processors.map((p, i) => compileProcessor(p, i + 1, opts.timeoutMs ?? defaultTimeoutMs));
  for (const p of processors) {
    if (p.problem)
      log.error(
        { processor: p.no, source: p.source, problem: p.problem },
        'guardrail processor cannot run; the methods it matches are rejected',
      );
  }
  return new GuardrailChain(processors);
}

type PhaseOutcome = { value: Record<string, unknown> } | { error: RpcErrorBody };

class GuardrailChain implements McpGuardrailChain {
  constructor(private readonly processors: Processor[]) {}

  async around(
    req: JsonRpcRequest,
    call: GuardrailCall,
    session: SessionInfo,
    next: (req: JsonRpcRequest) => Promise<JsonRpcResponse | undefined>,
  ): Promise<JsonRpcResponse | undefined> {
    const active = this.select(req.method, 'client');
    if (active.length === 0) return next(req);
    const original = req.params ?? {};
    const m = { method: req.method, id: req.id, params: original };
    const asked = await this.run(active, 'request', 'request', m, call, session);
    if ('error' in asked) return rejection(req.id, asked.error);
    const params = asked.value;
    const out = await next(params === original ? req : { ...req, params });
    if (!out || !('result' in out)) return out; // errors carry no content a processor would inspect
    const answered = await this.run(
      active,
      'response',
      'response',
      { ...m, params, result: out.result },
      call,
      session,
    );
    if ('error' in answered) return rejection(req.id, answered.error);
    return answered.value === out.result ? out : { ...out, result: answered.value };
  }

  async aroundServerRequest(
    req: JsonRpcRequest,
    target: string,
    call: GuardrailCall,
    session: SessionInfo,
    next: (params: Record<string, unknown>) => Promise<Record<string, unknown>>,
  ): Promise<{ result: Record<string, unknown> } | { error: RpcErrorBody }> {
    const active = this.select(req.method, 'other');
    const original = req.params ?? {};
    if (active.length === 0) return { result: await next(original) };
    const m = { method: req.method, id: req.id, target, params: original };
    const asked = await this.run(active, 'request', 'serverRequest', m, call, session);
    if ('error' in asked) return asked;
    const result = await next(asked.value);
    const answered = await this.run(
      active,
      'response',
      'serverResponse',
      { ...m, params: asked.value, result },
      call,
      session,
    );
    return 'error' in answered ? answered : { result: answered.value };
  }

  async notification(
    n: JsonRpcNotification,
    call: GuardrailCall,
    session: SessionInfo,
  ): Promise<JsonRpcNotification | undefined> {
    const active = this.select(n.method, 'other');
    if (active.length === 0) return n;
    const original = n.params ?? {};
    const asked = await this.run(
      active,
      'request',
      'notification',
      { method: n.method, params: original },
      call,
      session,
    );
    if ('error' in asked) return undefined;
    return asked.value === original ? n : { ...n, params: asked.value };
  }

  private select(method: string, kind: MessageKind): Active {
    if (neverGuarded.has(method)) return [];
    return this.processors.flatMap((p) => {
      const phase = p.table.phaseOf(method, kind);
      return phase && phase !== 'off' ? [{ p, phase }] : [];
    });
  }

  /** Runs one phase through the processors selecting it; `value` is params, or the result in a result phase. */
  private async run(
    active: Active,
    step: 'request' | 'response',
    phase: ContractPhase,
    m: Message,
    call: GuardrailCall,
    session: SessionInfo,
  ): Promise<PhaseOutcome> {
    let cur = m;
    for (const { p, phase: selected } of active) {
      if (!runsIn(selected, step)) continue;
      const out = await ask(p, phase, cur, call, session);
      if (out.kind === 'reject') return { error: out.error };
      if (out.kind === 'modify')
        cur = step === 'request' ? { ...cur, params: out.value } : { ...cur, result: out.value };
    }
    return { value: (step === 'request' ? cur.params : cur.result) ?? {} };
  }
}

function compileProcessor(ir: McpGuardrails['processors'][number], no: number, timeoutMs: number): Processor {
  const problems: string[] = ir.problem ? [ir.problem] : [];
  let table: MethodTable;
  try {
    table = compileMethodTable(ir.methods);
  } catch (err) {
    problems.push((err as Error).message);
    // Unknown coverage: fail closed on everything, a target's requests and client notifications included.
    table = compileMethodTable({
      '*': 'GUARDRAIL_FULL',
      'sampling/*': 'GUARDRAIL_FULL',
      'elicitation/*': 'GUARDRAIL_FULL',
      'roots/*': 'GUARDRAIL_FULL',
      'notifications/*': 'GUARDRAIL_FULL',
    });
  }
  let metadata: MetadataPlan = [];
  try {
    metadata = compileMetadata(ir.metadata);
  } catch (err) {
    problems.push((err as Error).message);
  }
  const usable = /^https?:\/\//.test(ir.url) && URL.canParse(ir.url);
  if (!ir.problem && !usable) problems.push(`url must be an http or https URL, got ${JSON.stringify(safeUrl(ir.url))}`);
  const problem = problems.join('; ');
  return {
    no,
    source: ir.source,
    table,
    problem,
    failOpen: ir.failureMode === 'FAIL_OPEN',
    metadata,
    headers: headerRules(ir.allowedRequestHeaders, ir.disallowedRequestHeaders),
    url: ir.url,
    client: problem ? undefined : processorClient(ir.url, timeoutMs),
  };
}

/** What did not happen when a processor said no or failed closed, by phase. */
const consequence: Record<ContractPhase, string> = {
  request: 'the call was not forwarded',
  response: 'the result was withheld',
  serverRequest: 'the request was not passed to the client',
  serverResponse: "the client's result was withheld",
  notification: 'the notification was dropped',
};

async function ask(
  p: Processor,
  phase: ContractPhase,
  m: Message,
  call: GuardrailCall,
  session: SessionInfo,
): Promise<Step> {
  const where = consequence[phase];
  if (!p.client)
    return {
      kind: 'reject',
      error: { code: GuardrailUnavailable, message: `${where}: guardrail processor ${p.no} is misconfigured` },
    };
  const body: ProcessorRequest = {
    version: contractVersion,
    phase,
    method: m.method,
    ...(m.id !== undefined ? { id: m.id } : {}),
    ...(m.target !== undefined ? { target: m.target } : {}),
    sessionId: session.id,
    params: m.params,
    ...(m.result ? { result: m.result } : {}),
    metadata: evaluateMetadata(p.metadata, {
      ...(call.claims ? { jwt: call.claims } : {}),
      request: call.request,
      mcp: mcpContext(m.method, m.params),
    }),
    headers: forwardedHeaders(call.request, p.headers),
  };
  const verdict = await p.client.ask(body);
  const fields = {
    processor: p.no,
    source: p.source,
    url: safeUrl(p.url),
    phase,
    method: m.method,
    ...(m.target !== undefined ? { target: m.target } : {}),
  };
  if (verdict instanceof Error) {
    session.log.warn(
      { ...fields, failureMode: p.failOpen ? 'FailOpen' : 'FailClosed', err: verdict.message },
      p.failOpen
        ? 'guardrail processor failed; FailOpen lets the call pass'
        : 'guardrail processor failed; FailClosed rejects the call',
    );
    return p.failOpen
      ? { kind: 'pass' }
      : {
          kind: 'reject',
          error: { code: GuardrailUnavailable, message: `${where}: guardrail processor ${p.no} is unavailable` },
        };
  }
  if (verdict.action === 'reject') {
    session.log.info(
      { ...fields, code: verdict.error.code },
      phase === 'notification'
        ? 'guardrail processor dropped the notification'
        : 'guardrail processor rejected the message',
    );
    return { kind: 'reject', error: verdict.error };
  }
  if (verdict.action === 'modify') {
    session.log.debug(fields, 'guardrail processor modified the message');
    return { kind: 'modify', value: 'params' in verdict ? verdict.params : verdict.result };
  }
  return { kind: 'pass' };
}

function rejection(id: Id, e: RpcErrorBody): JsonRpcResponse {
  return rpcError(id, e.code, e.message, e.data);
}

/** The `mcp` CEL variable, named the way authorization rules name it. */
function mcpContext(method: string, p: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { method };
  if (method === 'tools/call') out.tool = String(p.name ?? '');
  else if (method === 'prompts/get') out.prompt = String(p.name ?? '');
  else if (method.startsWith('resources/') && typeof p.uri === 'string') out.resource = p.uri;
  return out;
}
