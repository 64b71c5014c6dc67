// Prometheus metrics of one proxy runtime, on its own registry so several runtimes (tests) coexist.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** A counter on `registry`; `labelNames` empty for an unlabelled one. */
function counter<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[] = []) {
  return new Counter<L>({ name, help, labelNames, registers: [registry] });
}

/** One labelled series of a batched counter. */
export interface CounterChild {
  inc(n?: number): void;
}

/**
 * A counter whose `child(key, labels)` counts in a plain number, added
 * to the series whenever the counter is read (scrape, `get()`): prom-client hashes the label object on
 * every `inc`, children included, and that hash was a per-request cost of the LLM path.
 */
function batchedCounter<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]) {
  const children = new Map<
    string,
    { labels: Partial<Record<L, string>>; n: number; touched: boolean; inc(n?: number): void }
  >();
  const c = new Counter<L>({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      for (const ch of children.values()) {
        if (!ch.touched) continue;
        // Taken before it is added, so a throw cannot repeat at every later scrape. A child counted at 0 still
        // shows its series. prom-client refuses to add Infinity but lets its sum overflow to +Inf: a sum past
        // the largest double is added as two of them, so the series reads +Inf as it did unbatched.
        const n = ch.n;
        ch.n = 0;
        ch.touched = false;
        if (n === Infinity) this.inc(ch.labels, Number.MAX_VALUE);
        this.inc(ch.labels, Math.min(n, Number.MAX_VALUE));
      }
    },
  });
  /** The series of `labels` (an absent label is left out of it), looked up by the caller's `key` for them. */
  const child = (key: string, labels: Partial<Record<L, string>>): CounterChild => {
    let ch = children.get(key);
    if (!ch) {
      ch = {
        labels,
        n: 0,
        touched: false,
        inc(n = 1) {
          // Refused here as prom-client's own `inc` refuses it, not later at a scrape.
          if (!Number.isFinite(n) || n < 0) throw new TypeError(`a counter cannot be increased by ${n}`);
          this.n += n;
          this.touched = true;
        },
      };
      children.set(key, ch);
    }
    return ch;
  };
  return Object.assign(c, { child });
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];
/** Distinct combinations of added label values kept apart; past it new ones share the value `overflow`. */
export const MAX_LABEL_SETS = 1000;

/**
 * gw_http_requests_total and gw_http_request_duration_seconds, with the labels listeners add (GwPolicy
 * `frontend.metrics`). prom-client fixes a metric's label names when it is registered, so a snapshot that
 * changes the set of added names registers both again (their series restart from zero, as after a restart).
 */
export class RequestMetrics {
  private requests!: ReturnType<typeof batchedCounter<string>>;
  private latency!: Histogram<string>;
  private names: ReadonlySet<string> = new Set();
  /** Labelled children, looked up once per key: prom-client hashes the label object on every call otherwise. */
  private readonly children = new Map<string, { requests: CounterChild; latency: Histogram.Internal<string> }>();
  private readonly labelSets = new Set<string>();

  constructor(private readonly registry: Registry) {
    this.register([]);
  }

  /** The label names every listener of the snapshot adds, sorted; a change registers both metrics again. */
  useLabels(names: readonly string[]): void {
    if (names.join(',') === [...this.names].join(',')) return;
    this.registry.removeSingleMetric('gw_http_requests_total');
    this.registry.removeSingleMetric('gw_http_request_duration_seconds');
    this.register(names);
  }

  /** One finished request; `added` the labels its listener adds (absent ones are left out of the series). */
  record(method: string, status: number, seconds: number, added?: Record<string, string>): void {
    let key = `${method} ${status}`;
    let labels: Record<string, string> = { method };
    if (added) {
      // A request of the previous snapshot may end after a push dropped one of its labels: the current ones only.
      added = this.bounded(Object.fromEntries(Object.entries(added).filter(([k]) => this.names.has(k))));
      key += ` ${JSON.stringify(added)}`;
      labels = { ...added, method };
    }
    let c = this.children.get(key);
    if (!c) {
      c = {
        requests: this.requests.child(key, { ...labels, status: String(status) }),
        latency: this.latency.labels(labels),
      };
      this.children.set(key, c);
    }
    c.requests.inc();
    c.latency.observe(seconds);
  }

  private register(names: readonly string[]): void {
    this.names = new Set(names);
    this.children.clear();
    this.labelSets.clear();
    this.requests = batchedCounter(
      this.registry,
      'gw_http_requests_total',
      'HTTP requests by method and status (and the labels GwPolicy frontend.metrics adds).',
      ['method', 'status', ...names],
    );
    this.latency = new Histogram({
      name: 'gw_http_request_duration_seconds',
      help: 'HTTP request latency until the response ends (SSE streams included), by method (and added labels).',
      labelNames: ['method', ...names],
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
    });
  }

  /** The values as given while fewer than MAX_LABEL_SETS combinations were seen; a new one past it is `overflow`. */
  private bounded(added: Record<string, string>): Record<string, string> {
    const key = JSON.stringify(added);
    if (this.labelSets.has(key)) return added;
    if (this.labelSets.size < MAX_LABEL_SETS) {
      this.labelSets.add(key);
      return added;
    }
    return Object.fromEntries(Object.keys(added).map((k) => [k, 'overflow']));
  }
}

function httpMetrics(registry: Registry) {
  return {
    http: new RequestMetrics(registry),
    routeRequests: new Histogram({
      name: 'gw_route_request_duration_seconds',
      help: 'HTTP request latency by route (the IR route name; `-` when no route matched) and status class (2xx … 5xx): the web UI charts requests, errors and latency by route from it.',
      labelNames: ['route', 'class'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    errors: batchedCounter(
      registry,
      'gw_proxy_errors_total',
      'Requests the proxy answered with one of its own errors, by error code (docs/proxy.md "Error codes") and status.',
      ['code', 'status'],
    ),
  };
}

function mcpMetrics(registry: Registry) {
  return {
    mcpRequests: counter(registry, 'gw_mcp_requests_total', 'MCP requests by JSON-RPC method.', ['method']),
    a2aRequests: counter(
      registry,
      'gw_a2a_requests_total',
      'A2A JSON-RPC calls read on routes to A2A agents, by method under its A2A 1.0 name (other: a method A2A does not define).',
      ['method'],
    ),
    targetFailures: counter(registry, 'gw_mcp_target_failures_total', 'Failures talking to MCP targets.', [
      'target',
      'phase',
    ]),
    toolCalls: counter(
      registry,
      'gw_mcp_tool_calls_total',
      "MCP tools/call requests that reached a target, by target, tool (the target's own name) and outcome (ok; tool_error: the result says isError; error: a JSON-RPC error).",
      ['target', 'tool', 'outcome'],
    ),
    sessions: new Gauge({ name: 'gw_mcp_sessions_active', help: 'Open MCP client sessions.', registers: [registry] }),
    sessionsExpired: counter(registry, 'gw_mcp_sessions_expired_total', 'MCP sessions closed after the idle timeout.'),
    sessionsRefused: counter(
      registry,
      'gw_mcp_sessions_refused_total',
      'MCP initialize requests refused by a session cap, by reason (proxy_cap, client_cap).',
      ['reason'],
    ),
  };
}

function listenerMetrics(registry: Registry) {
  return {
    connectionsRefused: counter(
      registry,
      'gw_listener_connections_refused_total',
      'Connections closed at once because their source address reached the per-source cap.',
    ),
    connectionsDenied: counter(
      registry,
      'gw_listener_connections_denied_total',
      'Connections closed at once because GwPolicy frontend.networkAuthorization does not allow them.',
    ),
    proxyProtocolRejected: counter(
      registry,
      'gw_listener_proxy_protocol_rejected_total',
      'Connections closed before any other byte because they lack the PROXY protocol header their port requires (GwPolicy frontend.proxyProtocol Strict), send a malformed one, or the other version.',
    ),
  };
}

function upstreamMetrics(registry: Registry) {
  return {
    upstreamRequests: counter(
      registry,
      'gw_upstream_requests_total',
      'Requests forwarded to HTTP backends, by backend and response status class.',
      ['backend', 'class'],
    ),
    upstreamFailures: counter(
      registry,
      'gw_upstream_failures_total',
      'Forwarded requests that got no complete response, by backend and reason (connect, timeout, reset, other).',
      ['backend', 'reason'],
    ),
    upstreamRetries: counter(
      registry,
      'gw_upstream_retries_total',
      'Forwarded requests sent again after a retriable status or connect failure (GwPolicy traffic.retry), by backend.',
      ['backend'],
    ),
    rateLimited: counter(
      registry,
      'gw_rate_limited_total',
      'Requests refused with 429 by a local or global rate limit (GwPolicy traffic.rateLimit), by route.',
      ['route'],
    ),
  };
}

/** Passive health (policy/outlier.ts): ejections counted as they happen, the ejected members read at each scrape. */
function healthMetrics(registry: Registry) {
  const ejected: { now?: () => Iterable<[pool: string, member: string]> } = {};
  new Gauge({
    name: 'gw_upstream_ejected_endpoints',
    help: 'Endpoints, AI providers, MCP targets and GwModels ejected by passive health now, by pool (route, backend or GwModel).',
    labelNames: ['pool'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [pool] of ejected.now?.() ?? []) this.labels(pool).inc();
    },
  });
  return {
    upstreamEjections: counter(
      registry,
      'gw_upstream_ejections_total',
      'Ejections by passive health (backend.health), by pool, endpoint and reason (failures, retry_after).',
      ['pool', 'endpoint', 'reason'],
    ),
    /** Set by the runtime to its outlier detector's view. */
    ejected,
  };
}

function llmMetrics(registry: Registry) {
  return {
    llmRequests: batchedCounter(
      registry,
      'gw_llm_requests_total',
      'Requests sent to LLM providers (each failover attempt counts), by provider, upstream model and status (HTTP status, or connect / timeout).',
      ['provider', 'model', 'status'],
    ),
    llmTokens: batchedCounter(
      registry,
      'gw_llm_tokens_total',
      'Tokens LLM providers reported in response usage (streamed too), by provider, model and kind (input, output; cache_read and cache_write count the part of input read from or written to the vendor prompt cache).',
      ['provider', 'model', 'kind'],
    ),
    llmModeration: counter(
      registry,
      'gw_llm_moderation_total',
      'Inline moderation checks of LLM providers (openai.moderation), by provider, phase (input, output) and result (passed, flagged, error).',
      ['provider', 'phase', 'result'],
    ),
    llmCost: batchedCounter(
      registry,
      'gw_llm_cost_usd_total',
      "US dollars LLM answers cost by the model catalog's prices (tokens reported in usage times the price per million), by provider, model and kind (input, output); models without a catalog price are not counted.",
      ['provider', 'model', 'kind'],
    ),
    catalogReloads: counter(
      registry,
      'gw_model_catalog_reloads_total',
      'Reads of the model catalog files by result (applied, rejected: a bad file, the catalog in use kept; unchanged).',
      ['result'],
    ),
    catalogModels: new Gauge({
      name: 'gw_model_catalog_models',
      help: 'Models in the model catalog in use.',
      registers: [registry],
    }),
    guardVerdicts: counter(
      registry,
      'gw_llm_guard_verdicts_total',
      'Prompt guard decisions on LLM routes (backend.ai.promptGuard), by phase (request, response) and verdict (allow, modify, reject).',
      ['phase', 'verdict'],
    ),
  };
}

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Registration order is the order of the exposition text: keep it when adding a group.
  return {
    registry,
    ...httpMetrics(registry),
    ...mcpMetrics(registry),
    ...listenerMetrics(registry),
    ...upstreamMetrics(registry),
    ...healthMetrics(registry),
    ...llmMetrics(registry),
    reloads: counter(registry, 'gw_config_reloads_total', 'Configuration applications by result.', ['result']),
  };
}

export type ProxyMetrics = ReturnType<typeof createMetrics>;
