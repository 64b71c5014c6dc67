// The contract between the LLM forwarder (src/proxy/llm) and prompt guards (src/proxy/guard), so the
// two can grow apart: the forwarder only knows when to ask, the guards only know what to check.
import type { Logger } from 'pino';
import type { BackendRef, Route } from '../../ir/types.js';

/** What the guards may read about the client's request (CEL `request.*`, `jwt.*`, `llmRequest.*`). */
export interface GuardRequestContext {
  request: { method: string; path: string; host: string; headers: Record<string, string> };
  /** Validated token claims; absent for anonymous callers. */
  jwt?: Record<string, unknown>;
  /** The client's LLM request body as it arrived (OpenAI chat-completions shape), before any guard ran. */
  llmRequest: Record<string, unknown>;
  /** Starts a traced call (a client span) whose headers a webhook call carries; unset when tracing is off. */
  traceCall?: (
    name: string,
  ) => { headers: Record<string, string>; end(outcome: Record<string, string>, failed?: boolean): void } | undefined;
}

export type GuardVerdict =
  | { action: 'allow' }
  /** Replace the checked body (e.g. masked content) and go on. */
  | { action: 'modify'; body: Record<string, unknown> }
  /** Answer the client with this instead of going on; the body is sent as is. */
  | { action: 'reject'; status: number; contentType: string; body: string };

export interface LlmGuards {
  /** Before the prompt goes upstream; `body` is in the client's (OpenAI chat-completions) format. */
  request?(body: Record<string, unknown>, ctx: GuardRequestContext): Promise<GuardVerdict>;
  /**
   * Before a response returns to the client, in the client's format: a buffered (non-streaming) one, and a
   * streamed one assembled into a `chat.completion` when `heldStreams` is set.
   */
  response?(body: Record<string, unknown>, ctx: GuardRequestContext): Promise<GuardVerdict>;
  /**
   * Set when streamed answers must be checked too (`promptGuard.streaming: Buffered`): the forwarder holds
   * the stream whole, at most `maxBytes` of it (more fails closed), and releases it only after `response`.
   */
  heldStreams?: {
    maxBytes: number;
    /** The setting that holds streams, named when one outgrows `maxBytes` (default `promptGuard.streaming Buffered`). */
    by?: string;
  };
}

/**
 * What carries prompt guards: a route → backend edge, or a GwModel (`backend` is then the model's IR name and
 * `promptGuard` its `policies.promptGuard`), so both run through the same code.
 */
export type GuardedEdge = Pick<BackendRef, 'backend' | 'promptGuard'>;

/** Built once per route → backend edge (or GwModel on a route) each time a snapshot is applied; undefined when it has no guards. */
export type LlmGuardsFactory = (route: Route, ref: GuardedEdge, log: Logger) => LlmGuards | undefined;
