// What a client session holds for each of its targets, whichever way the target is reached: a
// streamable-HTTP target directly (http-target.ts), a stdio or legacy SSE target through the MCP SDK's
// client (upstream.ts, loaded only when a snapshot has one). Types only, so importing it loads nothing.
import type {
  ClientCapabilities,
  Implementation,
  JSONRPCRequest,
  Notification,
  ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { McpTarget } from '../../ir/types.js';
import type { RetryPlan } from '../policy/traffic-policy.js';
import type { CallOptions, UpstreamCall } from './upstream-http.js';

export interface UpstreamEvents {
  onNotification(target: string, n: Notification): void;
  /** A server-to-client request (sampling, elicitation, roots) to pass to the downstream client. */
  /** `eventId`: the SSE event that carried it on a call's stream, when the target gives ids (resumable). */
  onRequest(target: string, r: JSONRPCRequest, signal: AbortSignal, eventId?: string): Promise<Record<string, unknown>>;
  onClose(target: string): void;
}

export interface Upstream {
  name: string;
  /** A request to the target (the hot path). */
  call: UpstreamCall;
  /** A notification from the client session to the target (roots/list_changed). */
  notify(method: string): Promise<void>;
  capabilities: ServerCapabilities;
  /** The versions a target of 2026-07-28 offers (server/discover); unset for a 2025 target. */
  supportedVersions?: string[] | undefined;
  serverInfo: Implementation | undefined;
  instructions: string | undefined;
  alive: boolean;
  /** A stdio process or a legacy SSE connection: its session cannot be resumed elsewhere. */
  processLocal: boolean;
  /** The target's session id and protocol version (streamable-HTTP targets), for sealing. */
  sessionId(): string | undefined;
  protocolVersion(): string | undefined;
  /** Streamable-HTTP targets: answers one of the target's requests in its session, from any replica. */
  respond?(
    id: string | number,
    answer: { result: Record<string, unknown> } | { error: Record<string, unknown> },
  ): Promise<void>;
  /** Streamable-HTTP targets: picks up call `id` of this session from SSE event `from` on (Last-Event-ID). */
  resumeCall?(id: string, from: string, opts: CallOptions): Promise<Record<string, unknown>>;
  /** Settles once the target's GET stream (if one is opened) is open or refused. */
  streamReady?: Promise<void>;
  /** `end` also ends the target session (DELETE); without it only this process lets go (another replica may hold it). */
  close(end?: boolean): Promise<void>;
}

/** A target session another replica or worker began: attach to it instead of initializing. */
export interface ResumeAt {
  sessionId: string;
  protocolVersion: string | undefined;
  capabilities: ServerCapabilities;
}

/** Everything a connection to one target is opened with. */
export interface TargetDial {
  target: McpTarget;
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  events: UpstreamEvents;
  log: Logger;
  retry?: RetryPlan | undefined;
  resume?: ResumeAt | undefined;
  /** The caller's authenticated subject (sessions.ts subjectOf): a target's private discover answer is kept for it alone. */
  caller?: string | undefined;
  /**
   * The client speaks 2026-07-28 (one request at a time): a 2025 target gets no GET stream unless the request
   * is a subscriptions/listen; its requests to the client become input requests (input-bridge.ts).
   */
  modernClient?: { listening: boolean } | undefined;
}
