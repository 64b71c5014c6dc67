// Prometheus metrics of one proxy runtime, on its own registry so several runtimes (tests) coexist.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: 'gw_http_requests_total',
      help: 'HTTP requests by method and status.',
      labelNames: ['method', 'status'],
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'gw_http_request_duration_seconds',
      help: 'HTTP request latency until the response ends (SSE streams included).',
      labelNames: ['method'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers: [registry],
    }),
    errors: new Counter({
      name: 'gw_proxy_errors_total',
      help: 'Requests the proxy answered with one of its own errors, by error code (docs/proxy.md "Error codes") and status.',
      labelNames: ['code', 'status'],
      registers: [registry],
    }),
    mcpRequests: new Counter({
      name: 'gw_mcp_requests_total',
      help: 'MCP requests by JSON-RPC method.',
      labelNames: ['method'],
      registers: [registry],
    }),
    targetFailures: new Counter({
      name: 'gw_mcp_target_failures_total',
      help: 'Failures talking to MCP targets.',
      labelNames: ['target', 'phase'],
      registers: [registry],
    }),
    sessions: new Gauge({ name: 'gw_mcp_sessions_active', help: 'Open MCP client sessions.', registers: [registry] }),
    sessionsExpired: new Counter({
      name: 'gw_mcp_sessions_expired_total',
      help: 'MCP sessions closed after the idle timeout.',
      registers: [registry],
    }),
    sessionsRefused: new Counter({
      name: 'gw_mcp_sessions_refused_total',
      help: 'MCP initialize requests refused by a session cap, by reason (proxy_cap, client_cap).',
      labelNames: ['reason'],
      registers: [registry],
    }),
    connectionsRefused: new Counter({
      name: 'gw_listener_connections_refused_total',
      help: 'Connections closed at once because their source address reached the per-source cap.',
      registers: [registry],
    }),
    connectionsDenied: new Counter({
      name: 'gw_listener_connections_denied_total',
      help: 'Connections closed at once because GwPolicy frontend.networkAuthorization does not allow them.',
      registers: [registry],
    }),
    upstreamRequests: new Counter({
      name: 'gw_upstream_requests_total',
      help: 'Requests forwarded to HTTP backends, by backend and response status class.',
      labelNames: ['backend', 'class'],
      registers: [registry],
    }),
    upstreamFailures: new Counter({
      name: 'gw_upstream_failures_total',
      help: 'Forwarded requests that got no complete response, by backend and reason (connect, timeout, reset, other).',
      labelNames: ['backend', 'reason'],
      registers: [registry],
    }),
    upstreamRetries: new Counter({
      name: 'gw_upstream_retries_total',
      help: 'Forwarded requests sent again after a retriable status or connect failure (GwPolicy traffic.retry), by backend.',
      labelNames: ['backend'],
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'gw_rate_limited_total',
      help: 'Requests refused with 429 by a local rate limit (GwPolicy traffic.rateLimit.local), by route.',
      labelNames: ['route'],
      registers: [registry],
    }),
    llmRequests: new Counter({
      name: 'gw_llm_requests_total',
      help: 'Requests sent to LLM providers (each failover attempt counts), by provider, upstream model and status (HTTP status, or connect / timeout).',
      labelNames: ['provider', 'model', 'status'],
      registers: [registry],
    }),
    llmTokens: new Counter({
      name: 'gw_llm_tokens_total',
      help: 'Tokens LLM providers reported in response usage (streamed too), by provider, model and kind (input, output).',
      labelNames: ['provider', 'model', 'kind'],
      registers: [registry],
    }),
    llmModeration: new Counter({
      name: 'gw_llm_moderation_total',
      help: 'Inline moderation checks of LLM providers (openai.moderation), by provider, phase (input, output) and result (passed, flagged, error).',
      labelNames: ['provider', 'phase', 'result'],
      registers: [registry],
    }),
    reloads: new Counter({
      name: 'gw_config_reloads_total',
      help: 'Configuration applications by result.',
      labelNames: ['result'],
      registers: [registry],
    }),
  };
}

export type ProxyMetrics = ReturnType<typeof createMetrics>;
