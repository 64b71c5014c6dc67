// The guardrail chain of one route → MCP backend edge: for each client request, processors whose
// method table selects the request phase see the params before the call is forwarded, and those
// selecting the response phase see the result before it returns. In list order; the first rejection
// stops the chain and becomes a JSON-RPC error for the request's id.
import type { Logger } from 'pino';
import type { McpGuardrails } from '../../ir/types.js';
import { type Id, type JsonRpcRequest, type JsonRpcResponse, rpcError } from '../jsonrpc.js';
import { defaultTimeoutMs, processorClient, safeUrl, type ProcessorClient } from './client.js';
import { GuardrailUnavailable, contractVersion, type ProcessorRequest, type RpcErrorBody } from './contract.js';
import { forwardedHeaders, headerRules, type HeaderRules } from './headers.js';
import { compileMethodTable, runsIn, type MethodTable } from './method-match.js';
import { compileMetadata, evaluateMetadata, type MetadataPlan } from './metadata.js';

/** What a processor may learn about the client's call (a session's CallContext fits). */
export interface GuardrailCall {
  claims: Record<string, unknown> | null;
  readonly request: { method: string; path: string; headers: Record<string, string> };
}

export interface McpGuardrailChain {
  /** Runs the request phase, then `next` (the session's normal handling), then the response phase. */
  around(
    req: JsonRpcRequest, call: GuardrailCall, session: { id: string; log: Logger },
    next: (req: JsonRpcRequest) => Promise<JsonRpcResponse | undefined>,
  ): Promise<JsonRpcResponse | undefined>;
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

type Step = { kind: 'pass' } | { kind: 'modify'; value: Record<string, unknown> } | { kind: 'reject'; error: RpcErrorBody };

// Liveness checks carry no content; sending each keep-alive ping to every `*` processor only adds load.
const neverGuarded = new Set(['ping']);

/** Never throws: a processor that cannot be compiled fails closed on every method and is logged once here. */
export function compileGuardrails(ir: McpGuardrails, log: Logger, opts: ChainOptions = {}): McpGuardrailChain {
  const processors = ir.processors.map((p, i) => compileProcessor(p, i + 1, opts.timeoutMs ?? defaultTimeoutMs));
  for (const p of processors) {
    if (p.problem) log.error({ processor: p.no, source: p.source, problem: p.problem }, 'guardrail processor cannot run; the methods it matches are rejected');
  }
  return {
    async around(req, call, session, next) {
      if (neverGuarded.has(req.method)) return next(req);
      const active = processors.flatMap((p) => {
        const phase = p.table.phaseOf(req.method);
        return phase && phase !== 'off' ? [{ p, phase }] : [];
      });
      if (active.length === 0) return next(req);
      const original = req.params ?? {};
      let params = original;
      for (const { p, phase } of active) {
        if (!runsIn(phase, 'request')) continue;
        const step = await ask(p, 'request', req, params, undefined, call, session);
        if (step.kind === 'reject') return rejection(req.id, step.error);
        if (step.kind === 'modify') params = step.value;
      }
      const out = await next(params === original ? req : { ...req, params });
      if (!out || !('result' in out)) return out; // errors carry no content a processor would inspect
      let result = out.result;
      for (const { p, phase } of active) {
        if (!runsIn(phase, 'response')) continue;
        const step = await ask(p, 'response', req, params, result, call, session);
        if (step.kind === 'reject') return rejection(req.id, step.error);
        if (step.kind === 'modify') result = step.value;
      }
      return result === out.result ? out : { ...out, result };
    },
  };
}

function compileProcessor(ir: McpGuardrails['processors'][number], no: number, timeoutMs: number): Processor {
  const problems: string[] = ir.problem ? [ir.problem] : [];
  let table: MethodTable;
  try {
    table = compileMethodTable(ir.methods);
  } catch (err) {
    problems.push((err as Error).message);
    table = compileMethodTable({ '*': 'GUARDRAIL_FULL' }); // unknown coverage: fail closed on everything
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
    no, source: ir.source, table, problem, failOpen: ir.failureMode === 'FAIL_OPEN', metadata,
    headers: headerRules(ir.allowedRequestHeaders, ir.disallowedRequestHeaders), url: ir.url,
    client: problem ? undefined : processorClient(ir.url, timeoutMs),
  };
}

async function ask(
  p: Processor, phase: 'request' | 'response', req: JsonRpcRequest, params: Record<string, unknown>,
  result: Record<string, unknown> | undefined, call: GuardrailCall, session: { id: string; log: Logger },
): Promise<Step> {
  const where = phase === 'request' ? 'the call was not forwarded' : 'the result was withheld';
  if (!p.client) return { kind: 'reject', error: { code: GuardrailUnavailable, message: `${where}: guardrail processor ${p.no} is misconfigured` } };
  const body: ProcessorRequest = {
    version: contractVersion, phase, method: req.method, id: req.id, sessionId: session.id, params,
    ...(result ? { result } : {}),
    metadata: evaluateMetadata(p.metadata, { ...(call.claims ? { jwt: call.claims } : {}), request: call.request, mcp: mcpContext(req.method, params) }),
    headers: forwardedHeaders(call.request, p.headers),
  };
  const verdict = await p.client.ask(body);
  const fields = { processor: p.no, source: p.source, url: safeUrl(p.url), phase, method: req.method };
  if (verdict instanceof Error) {
    session.log.warn({ ...fields, failureMode: p.failOpen ? 'FailOpen' : 'FailClosed', err: verdict.message },
      p.failOpen ? 'guardrail processor failed; FailOpen lets the call pass' : 'guardrail processor failed; FailClosed rejects the call');
    return p.failOpen ? { kind: 'pass' } : { kind: 'reject', error: { code: GuardrailUnavailable, message: `${where}: guardrail processor ${p.no} is unavailable` } };
  }
  if (verdict.action === 'reject') {
    session.log.info({ ...fields, code: verdict.error.code }, 'guardrail processor rejected the call');
    return { kind: 'reject', error: verdict.error };
  }
  if (verdict.action === 'modify') {
    session.log.debug(fields, 'guardrail processor modified the call');
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
