// What the MCP endpoint needs from a compiled route and from the runtime: the types endpoint.ts,
// stateless.ts and the runtime share, kept apart so those files need not import each other.
import type { McpBackend, McpTarget } from '../../ir/types.js';
import type { BackendIdentities } from '../auth/backend-identity.js';
import type { ExtAuthClient, ExtAuthRoute } from '../auth/ext-auth.js';
import type { RouteSecurity } from '../auth/hooks.js';
import type { RetryPlan } from '../policy/traffic-policy.js';
import type { McpGuardrailChain } from './guardrails/index.js';
import type { SessionRegistry } from './sessions.js';
import type { ToolCallOutcome } from './session.js';
import type { TargetHealth } from './target-health.js';

export interface McpRoute {
  name: string;
  backend: McpBackend;
  security: RouteSecurity;
  maxRequestBytes: number;
  /** backend.mcp.guardrails of the edge sessions use; unset means none. */
  guardrails?: McpGuardrailChain;
  /** Bound of one call to a target, from the route's `timeouts`; unset means the session default. */
  callTimeoutMs?: number;
  /** Target name → its `backend.http.requestTimeout` (ms), the bound of a call when the route sets no `timeouts`. */
  targetCallTimeoutMs?: Readonly<Record<string, number>>;
  /** GwPolicy `traffic.retry`: requests to remote targets that may safely be sent again. */
  retry?: RetryPlan;
  /** Targets with a per-request identity (target-identity.ts): their credential is obtained for every request. */
  identityTargets?: McpTarget[];
  /** Passive health of the targets (`backend.health`); unset when no target sets it. */
  health?: TargetHealth;
  /** Target name → its own `backend.extAuth` (target-ext-auth.ts), asked before a client request reaches it. */
  targetExtAuth?: ReadonlyMap<string, ExtAuthRoute>;
}

export interface EndpointContext {
  sessions: SessionRegistry;
  serverInfo: { name: string; title: string; version: string };
  onMcpMethod(method: string): void;
  onTargetFailure(target: string, phase: string): void;
  /** A tools/call a target answered (or failed): target, its own tool name and the outcome. */
  onToolCall?(target: string, tool: string, outcome: ToolCallOutcome): void;
  /** Exchanged and signed tokens, shared with the other edges; unset: no MCP target gets a per-request identity. */
  identities?: BackendIdentities;
  /** Asks the targets' `backend.extAuth`; unset: a target with one refuses every request it would serve. */
  extAuth?: ExtAuthClient;
}
