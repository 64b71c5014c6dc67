// The admin API's bodies (`/ui/api/v1/…`, docs/ui.md "API"), read by the proxy that builds them
// (src/proxy/admin) and the browser app that shows them (src/ui). Types only: neither room loads code from here.

export interface RefusalView {
  field: string;
  source: string;
  reason: string;
  security: boolean;
}

export interface OverviewView {
  role: string;
  gateway: string;
  pod: string;
  gwVersion: string;
  worker: number | null;
  ready: boolean;
  snapshotVersion: string;
  xds: {
    connected: boolean;
    version: string;
    ack: 'waiting' | 'ACK' | 'NACK';
    nacked: { name: string; message: string }[];
    updatedAt?: string;
  } | null;
}

export interface RouteView {
  name: string;
  listeners: string[];
  hostnames: string[];
  /** `PathPrefix /mcp`, `Exact /v1/models`, with `GET` or header names when the match has them. */
  matches: string[];
  backends: { backend: string; weight: number }[];
  /** Effective policy: each set field's path and the object that set it (no values). */
  policy: { field: string; source: string }[];
  refusals: RefusalView[];
  unserved: { reason: string; message: string }[];
}

export interface SnapshotView {
  binds: { name: string; address: string; port: number }[];
  listeners: { name: string; bind: string; protocol: string; hostnames: string[]; refusals: RefusalView[] }[];
  routes: RouteView[];
  backends: { name: string; kind: string; summary: string }[];
}

export interface TargetView {
  backend: string;
  name: string;
  transport: string;
  /** `serving` or `ejected` (outlier detection; nothing probes). */
  health: 'serving' | 'ejected';
  /** The routes (outlier pools of MCP targets) in which the target is ejected now. */
  ejectedIn: string[];
}

export interface McpView {
  targets: TargetView[];
  /** `worker`: the count is that worker's only (--workers). */
  sessions: { active: number; worker: number | null };
}

export interface LlmView {
  providers: { backend: string; group: number; name: string; kind: string; host: string; health: string }[];
  models: { name: string; match: string; target: string; refusals: RefusalView[] }[];
}

/** A counter's value (or a histogram's count and sum) for one key of a breakdown. */
export interface LivePoint {
  key: string;
  value: number;
}

/**
 * `metrics`: the proxy's counters as they are now (monotonic since the start or the last re-registration);
 * the browser keeps a short ring of these and derives rates from consecutive reads.
 */
export interface MetricsView {
  /** Milliseconds since the epoch, when the registry was read. */
  at: number;
  worker: number | null;
  /** Requests by route (`-` when no route matched) and by status class (`2xx` … `5xx`). */
  requestsByRoute: LivePoint[];
  requestsByClass: LivePoint[];
  /** Sum and count of request durations in seconds, by route. */
  latencySumByRoute: LivePoint[];
  latencyCountByRoute: LivePoint[];
  /** The proxy's own errors by error code. */
  errorsByCode: LivePoint[];
  /** Tokens and US dollars by upstream model (all kinds added). */
  tokensByModel: LivePoint[];
  costByModel: LivePoint[];
  /** MCP tools/call by tool (`target/tool`). */
  toolCallsByTool: LivePoint[];
}

/** One access-log line as the listener's access log wrote it (its filter passed; removed fields gone). */
export interface AccessEntry {
  seq: number;
  listener: string;
  fields: Record<string, string | number | boolean>;
}

/** `access-log?after=N`: lines after N (long poll: waits for one when there is none yet). */
export interface AccessTailView {
  entries: AccessEntry[];
  /** The last line's number: the next call passes it as `after`. */
  last: number;
  /** Lines older than the ring's size were dropped before this read saw them. */
  dropped: number;
  /** Listeners of the snapshot with an access log (only their lines are tailed). */
  listeners: string[];
  worker: number | null;
}

/** `cel` (POST): one expression evaluated with the proxy's CEL environment against a sample context. */
export interface CelRequest {
  expression: string;
  /** The variables, as JSON objects: request, jwt, mcp, llmRequest, apiKey, response, … */
  context: Record<string, unknown>;
  /** Where the expression is used (`accessLog`, `extAuth`, … as the proxy names them): only its variables are known. */
  use?: string;
}

/** `cel` (GET): the places an expression is used and the variables each knows. */
export interface CelUsesView {
  uses: { name: string; variables: string[] }[];
}

export type CelResult = { ok: true; value: unknown; type: string } | { ok: false; error: string; phase: string };
