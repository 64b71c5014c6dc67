// Prometheus metrics of one proxy runtime, on its own registry so several runtimes (tests) coexist.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** A counter on `registry`; `labelNames` empty for an unlabelled one. */
function counter<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[] = []) {
  return new Counter<L>({ name, help, labelNames, registers: [registry] });
}

function httpMetrics(registry: Registry) {
  return {
    requests: counter(registry, 'gw_http_requests_total', 'HTTP requests by method and status.', ['method', 'status']),
    latency: new Histogram({
      name: 'gw_http_request_duration_seconds',
      help: 'HTTP request latency until the response ends (SSE streams included).',
      labelNames: ['method'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers: [registry],
    }),
    errors: counter(
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
    targetFailures: counter(registry, 'gw_mcp_target_failures_total', 'Failures talking to MCP targets.', [
      'target',
      'phase',
    ]),
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
      'Requests refused with 429 by a local rate limit (GwPolicy traffic.rateLimit.local), by route.',
      ['route'],
    ),
  };
}

function llmMetrics(registry: Registry) {
  return {
    llmRequests: counter(
      registry,
      'gw_llm_requests_total',
      'Requests sent to LLM providers (each failover attempt counts), by provider, upstream model and status (HTTP status, or connect / timeout).',
      ['provider', 'model', 'status'],
    ),
    llmTokens: counter(
      registry,
      'gw_llm_tokens_total',
      'Tokens LLM providers reported in response usage (streamed too), by provider, model and kind (input, output).',
      ['provider', 'model', 'kind'],
    ),
    llmModeration: counter(
      registry,
      'gw_llm_moderation_total',
      'Inline moderation checks of LLM providers (openai.moderation), by provider, phase (input, output) and result (passed, flagged, error).',
      ['provider', 'phase', 'result'],
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
    ...llmMetrics(registry),
    reloads: counter(registry, 'gw_config_reloads_total', 'Configuration applications by result.', ['result']),
  };
}

export type ProxyMetrics = ReturnType<typeof createMetrics>;
