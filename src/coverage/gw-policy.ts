// Coverage of GwPolicy: what the proxy acts on, what is refused, what only the control plane reads.
import { backendFull } from './backend-policy.js';
import { controlPlane, enforced, guarding, under, type CoverageTable } from './types.js';

const h2Note = 'HTTPS listeners that negotiate h2; per port, the smallest a listener on it sets';

const traffic: CoverageTable = {
  // Who gets in: authentication of every kind, authorization, extAuth, CORS and CSRF.
  ...guarding({
    'apiKeyAuthentication.*': enforced('Policy.apiKeyAuthentication'),
    'basicAuthentication.*': enforced('Policy.basicAuthentication'),
    'jwtAuthentication.*': enforced('Policy.jwtAuthentication'),
    'jwtAuthentication.mcp.*': enforced('Policy.mcpAuthentication'),
    'jwtAuthentication.providers[].jwks.remote.backendRef.*': enforced(
      'JwtProvider.jwksUrl',
      'and JwtProvider.jwksTls (McpAuthentication.jwksTls with jwtAuthentication.mcp): a Service (its BackendTLSPolicy) or a static GwBackend (its policies.tls)',
    ),
    'jwtAuthentication.providers[].jwks.remote.path': enforced('JwtProvider.jwksUrl', 'default /.well-known/jwks.json'),
    'jwtAuthentication.providers[].jwks.remote.cacheDuration': enforced('JwtProvider.jwksCacheSeconds'),
    'jwtAuthentication.location.expression': enforced('TokenLocation.expression'),
    'apiKeyAuthentication.location.expression': enforced('TokenLocation.expression'),
    'apiKeyAuthentication.secretSelector.*': enforced(
      'ApiKeyAuthentication.entries',
      'every matching Secret of the policy namespace, re-read when one is added, removed or relabelled; a key found twice with different metadata is refused and named on status (ApiKeysUnique)',
    ),
    'apiKeyAuthentication.configMapSelector.*': enforced(
      'ApiKeyAuthentication.entries',
      'keyHash entries only (a plain key in a ConfigMap refuses the route); otherwise as secretSelector',
    ),
    'authorization.*': enforced('Policy.authorization'),
    'extAuth.*': enforced('Policy.extAuthorization'),
    'cors.*': enforced('Policy.cors'),
    'csrf.*': enforced('TrafficPolicy.csrf'),
  }),
  ...guarding({
    'extProc.*': enforced(
      'Policy.extProcessing',
      'every phase on forwarded HTTP routes; on MCP and LLM routes the answers the proxy writes (JSON-RPC, LLM JSON and SSE) (test/proxy/ext-proc-endpoints.test.ts)',
    ),
  }),
  'buffer.request.maxBytes': enforced('Policy.maxRequestBytes'),
  'buffer.request.failureMode': enforced(
    'TrafficPolicy.requestBuffer',
    'FailOpen streams an oversized body on forwarded HTTP routes without retry; on MCP and LLM routes FailOpen is refused on status (scope-refusals.ts)',
  ),
  'buffer.response.*': enforced(
    'TrafficPolicy.responseBuffer',
    'forwarded HTTP routes; refused on status for MCP and LLM routes',
  ),
  'delay.*': enforced('TrafficPolicy.delay'),
  hostRewrite: enforced('TrafficPolicy.hostRewrite', 'forwarded HTTP routes; refused on status for MCP and LLM routes'),
  'transformation.*': enforced(
    'TrafficPolicy.transformation',
    'forwarded HTTP routes (CEL header and body edits, compiled once per snapshot); refused on status for MCP and LLM routes',
  ),
  'timeouts.*': enforced('TrafficPolicy.timeouts'),
  'retry.*': enforced('TrafficPolicy.retry'),
  'headerModifiers.*': enforced('TrafficPolicy.requestHeaders', 'and TrafficPolicy.responseHeaders'),
  'rateLimit.local[].*': enforced('TrafficPolicy.localRateLimits'),
  'rateLimit.local[].tokens': enforced(
    'LocalRateLimit.tokens',
    "LLM routes: each answer's input + output tokens count against later requests; refused on status for other routes",
  ),
  'rateLimit.global.*': enforced(
    'Policy.globalRateLimit',
    "one envoy.service.ratelimit.v3 ShouldRateLimit call per request after authentication and authorization; 429 with Retry-After and the service's x-ratelimit-* headers",
  ),
  'rateLimit.global.descriptors[].entries[].*': enforced(
    'GlobalRateLimitDescriptor.entries',
    'CEL over request, jwt, apiKey, extauthz, and on LLM routes llmRequest and llm (the call then waits for the body; elsewhere refused as a security field, 503); a descriptor whose entry does not evaluate to text is not sent',
  ),
  'rateLimit.global.descriptors[].unit': enforced(
    'GlobalRateLimitDescriptor.tokens',
    "Tokens: checked before an LLM request, the answer's input + output tokens sent as hits_addend after it; refused on status for other routes",
  ),
  'directResponse.*': enforced('TrafficPolicy.directResponse'),
  'directResponse.conditional[].*': enforced(
    'DirectResponse.conditional',
    'first entry whose condition holds answers; none: the request goes on',
  ),
};

const frontendTable: CoverageTable = {
  'accessLog.*': enforced(
    'Listener.telemetry',
    'one line per request through the proxy log (test/proxy/telemetry-access-log.test.ts)',
  ),
  'accessLog.preset': enforced('AccessLog.otelPreset', 'OpenTelemetry semantic-convention field names'),
  'accessLog.filter': enforced('AccessLog.filter', 'an expression that does not compile is refused on status'),
  'accessLog.attributes.add[].*': enforced('AccessLog.add'),
  'accessLog.attributes.remove[]': enforced('AccessLog.remove'),
  'accessLog.otlp.*': enforced(
    'AccessLog.otlpLogsUrl',
    'OTLP/HTTP (protobuf) log records, or OTLP/gRPC for grpc:// and grpcs:// URLs (test/proxy/telemetry-otlp.test.ts)',
  ),
  'connect.*': enforced(
    'Listener.connectMode',
    "HTTP/1.1 CONNECT; Deny (like no policy) answers 405; Route matches the authority's host as a request, runs the route's policies, then tunnels to its backend (dynamicForwardProxy: to the authority); Tunnel serves the bytes after the 200 as a new connection of the listener's port; HTTP/2 CONNECT gets 405 (test/proxy/connect.test.ts)",
  ),
  'http.maxConcurrentRequests': enforced(
    'ListenerLimits.maxConcurrentRequests',
    'excess requests on the listener get 503',
  ),
  'metrics.*': enforced(
    'ListenerTelemetry.metrics',
    "labels on gw_http_requests_total and gw_http_request_duration_seconds of the listener's requests (test/proxy/metric-attributes.test.ts)",
  ),
  'metrics.attributes.add[].*': enforced(
    'ListenerMetrics.add',
    "CEL over what access-log expressions see, `unknown` when it fails; a name that is not a Prometheus label name, repeats, or is one of the metrics' own labels, and an expression that does not compile, are refused on status",
  ),
  ...guarding({
    'networkAuthorization.*': enforced(
      'Listener.networkAuthorization',
      'CEL over source/destination address and port; a refused connection is closed before any byte is read',
    ),
  }),
  'proxyProtocol.*': enforced(
    'Listener.proxyProtocol',
    "read before TLS and HTTP; its source address is the client's (networkAuthorization source, X-Forwarded-For, access log); per port: listeners sharing a port must agree, else it is refused on all of them (test/proxy/proxy-protocol.test.ts)",
  ),
  'tcp.keepalive.time': enforced(
    'ListenerLimits.keepaliveTimeMs',
    'idle time before the first TCP keepalive probe; per port, the smallest a listener on it sets',
  ),
  'tcp.keepalive.retries': enforced(
    'ListenerLimits.keepaliveProbes',
    "unanswered probes before the connection is dropped; per port, the smallest a listener on it sets; needs Node 24 (the image's), an older Node NACKs the listener naming the field",
  ),
  'tcp.keepalive.interval': enforced(
    'ListenerLimits.keepaliveIntervalMs',
    "time between unanswered probes; per port, the smallest a listener on it sets; needs Node 24 (the image's), an older Node NACKs the listener naming the field",
  ),
  'http.http1IdleTimeout': enforced(
    'ListenerLimits.http1IdleTimeoutMs',
    'idle keep-alive connections are closed after it; per port, the smallest a listener on it sets',
  ),
  'http.http1MaxHeaders': enforced('ListenerLimits.http1MaxHeaders', 'a request with more header fields gets 431'),
  'http.http1HeaderCase': enforced(
    'ListenerLimits.http1PreserveHeaderCase',
    "Preserve: requests forwarded over HTTP/1.1 keep the client's header-name case, responses to HTTP/1.1 clients the backend's (forwarded HTTP routes; HTTP/2 hops are lower case by protocol)",
  ),
  'http.maxConnectionDuration': enforced(
    'ListenerLimits.maxConnectionDurationMs',
    'an older connection is closed after its current request; per port, the smallest a listener on it sets',
  ),
  'http.http2WindowSize': enforced('ListenerLimits.http2WindowSize', h2Note),
  'http.http2ConnectionWindowSize': enforced('ListenerLimits.http2ConnectionWindowSize', h2Note),
  'http.http2FrameSize': enforced('ListenerLimits.http2FrameSize', `${h2Note}; clamped to HTTP/2's 16384-16777215`),
  'http.http2MaxHeaderSize': enforced('ListenerLimits.http2MaxHeaderSize', h2Note),
  'http.http2KeepaliveInterval': enforced('ListenerLimits.http2KeepaliveIntervalMs', h2Note),
  'http.http2KeepaliveTimeout': enforced('ListenerLimits.http2KeepaliveTimeoutMs', h2Note),
  'http.maxBufferSize': enforced(
    'ListenerLimits.maxBufferSize',
    "the request-body limit (413) of the listener's routes that set no traffic buffer.request.maxBytes; a route on several listeners takes the smallest",
  ),
  'tcp.maxConnections': enforced(
    'ListenerLimits.maxConnections',
    "excess connections on the listener's port are closed; listeners sharing a port share the smallest cap",
  ),
  // Listener TLS: who can read the traffic.
  ...guarding({
    'tls.*': enforced(
      'Listener.tls',
      'HTTPS listeners; versions, cipher suites, groups and the handshake timeout hold per port: listeners sharing a port must agree, else they are refused (security)',
    ),
    'tls.minProtocolVersion': enforced('ListenerTls.minProtocolVersion'),
    'tls.maxProtocolVersion': enforced('ListenerTls.maxProtocolVersion'),
    'tls.cipherSuites[]': enforced('ListenerTls.cipherSuites'),
    'tls.keyExchangeGroups[]': enforced(
      'ListenerTls.keyExchangeGroups',
      "X25519_MLKEM768 needs OpenSSL 3.5 (Node 24, the image's): an older Node refuses the listener naming it (fails closed)",
    ),
    'tls.alpnProtocols[]': enforced(
      'ListenerTls.alpnProtocols',
      'chosen per listener by SNI; only protocols the proxy speaks (h2, http/1.1) are ever selected, a client offering none of them fails the handshake',
    ),
    'tls.handshakeTimeout': enforced('ListenerTls.handshakeTimeoutMs'),
  }),
  'tracing.*': enforced(
    'Tracing.otlpTracesUrl',
    'OTLP/HTTP (protobuf) spans, or OTLP/gRPC for grpc:// and grpcs:// URLs; W3C traceparent honoured and propagated (test/proxy/telemetry-otlp.test.ts, test/proxy/llm/llm-telemetry.test.ts)',
  ),
};

export const gwPolicyCoverage: CoverageTable = {
  'spec.targetRefs[].*': controlPlane('policy attachment (merge, status)', [
    'src/translate/policies/policy-targets.ts',
  ]),
  'spec.targetSelectors[].*': controlPlane('policy attachment (merge, status)', [
    'src/translate/policies/policy-targets.ts',
  ]),
  'spec.strategy.inheritance': controlPlane('policy merge precedence', ['src/translate/policies/policy-targets.ts']),
  'spec.strategy.merge': controlPlane(
    'policy merge: Replace takes the higher-precedence policy whole instead of field by field',
    ['src/translate/policies/policy-merge.ts'],
  ),
  ...under('spec.traffic', traffic),
  ...under('spec.frontend', frontendTable),
  ...under('spec.backend', backendFull),
};
