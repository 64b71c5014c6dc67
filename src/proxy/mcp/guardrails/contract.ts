// The wire contract between the proxy and a remote MCP guardrail processor (docs/mcp-guardrails.md):
// what the proxy POSTs, and the verdicts a processor may answer with.

export const contractVersion = 'gw.dev/mcp-guardrails/v1';

/** JSON-RPC error code for a call a processor rejected without giving its own code. */
export const GuardrailRejected = -32050;
/** JSON-RPC error code for a call stopped because a FailClosed processor could not be asked (or is misconfigured). */
export const GuardrailUnavailable = -32051;

/**
 * `request` / `response`: a client's request and its result. `serverRequest` / `serverResponse`: a request a
 * target sends to the client (sampling, elicitation, roots) and the client's result. `notification`: a
 * client's notification. The last three came later; tables written before them do not select them (method-match.ts).
 */
export type ContractPhase = 'request' | 'response' | 'serverRequest' | 'serverResponse' | 'notification';

/** Phases whose `modify` verdict replaces `result` rather than `params`. */
export const resultPhases: ReadonlySet<ContractPhase> = new Set(['response', 'serverResponse']);

export interface ProcessorRequest {
  version: typeof contractVersion;
  phase: ContractPhase;
  /** JSON-RPC method, e.g. `tools/call`. */
  method: string;
  /** The request's JSON-RPC id: the client's, or for server phases the target's; absent for a notification. */
  id?: string | number;
  /** The target that sent the request; server phases only. */
  target?: string;
  /** The client's session; empty on stateless routes. */
  sessionId: string;
  /** Request (or notification) params as sent, after earlier processors' changes; in every phase. */
  params: Record<string, unknown>;
  /** The result: the target's (merged) one in `response`, the client's in `serverResponse`. */
  result?: Record<string, unknown>;
  /** Evaluated `metadata` expressions; names whose expression failed are left out. */
  metadata: Record<string, unknown>;
  /** Client request headers after the allow/deny lists, lower-case names, pseudo-headers included. */
  headers: Record<string, string>;
}

export interface RpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

export type Verdict =
  | { action: 'allow' }
  | { action: 'modify'; params: Record<string, unknown> }
  | { action: 'modify'; result: Record<string, unknown> }
  | { action: 'reject'; error: RpcErrorBody };

/** The processor's answer for `phase`, or an Error saying why it is not a verdict (a processor failure). */
export function parseVerdict(body: unknown, phase: ContractPhase): Verdict | Error {
  if (!isObject(body)) return new Error('the answer is not a JSON object');
  switch (body.action) {
    case 'allow':
      return { action: 'allow' };
    case 'modify': {
      const member = resultPhases.has(phase) ? 'result' : 'params';
      const value = body[member];
      if (!isObject(value)) return new Error(`a modify verdict in the ${phase} phase needs an object "${member}"`);
      return member === 'params' ? { action: 'modify', params: value } : { action: 'modify', result: value };
    }
    case 'reject': {
      const e = isObject(body.error) ? body.error : {};
      const code = Number.isSafeInteger(e.code) ? (e.code as number) : GuardrailRejected;
      const message = typeof e.message === 'string' && e.message !== '' ? e.message : 'rejected by a guardrail';
      return { action: 'reject', error: { code, message, ...(e.data !== undefined ? { data: e.data } : {}) } };
    }
    default:
      return new Error(`"action" must be allow, modify or reject, got ${JSON.stringify(body.action) ?? 'nothing'}`);
  }
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
