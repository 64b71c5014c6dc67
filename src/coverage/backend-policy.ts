// Backend settings (GwPolicy `backend`, GwBackend `policies`, per-provider and per-MCP-target
// `policies`, GwModel `policies`) share one schema; their coverage is written once here.
import { enforced, guarding, type CoverageTable } from './types.js';

/** The credential a backend is called with. */
export const backendAuth: CoverageTable = guarding({
  'auth.key': enforced('AiCredential.key'),
  'auth.secretRef.*': enforced('AiCredential.key'),
  'auth.passthrough.*': enforced('AiCredential.passthrough'),
  'auth.aws.*': enforced('AiCredential.aws'),
  'auth.azure.*': enforced('AiCredential.azure'),
  'auth.gcp.*': enforced('AiCredential.gcp'),
  'auth.oauthTokenExchange.*': enforced(
    'AiCredential.tokenExchange',
    'on every edge: static, a2a, Service, dynamicForwardProxy, MCP targets (streamable HTTP and legacy SSE) and AI providers (auth/backend-identity.ts); a backendRef to a GwBackend with policies.tls or a Service with a BackendTLSPolicy is called with that TLS (TokenExchangeCredential.tls)',
  ),
  'auth.crossAppAccess.*': enforced(
    'AiCredential.crossAppAccess',
    'on every edge: static, a2a, Service, dynamicForwardProxy, MCP targets and AI providers (auth/backend-identity.ts)',
  ),
  'auth.jwtSign.*': enforced(
    'AiCredential.jwtSign',
    'on every edge: static, a2a, Service, dynamicForwardProxy, MCP targets and AI providers (auth/backend-identity.ts)',
  ),
});

/** Upstream TLS: who the proxy talks to and who can read it. */
export const backendTls: CoverageTable = guarding({
  'tls.caCertificateRefs[].*': enforced('BackendTls.caPem'),
  'tls.certificateSource': enforced('BackendTls.workloadIdentity'),
  'tls.mtlsCertificateRef[].*': enforced('BackendTls.clientCertChainPem'),
  'tls.sni': enforced('BackendTls.sni'),
  'tls.insecureSkipVerify': enforced('BackendTls.insecureSkipVerify'),
  'tls.verifySubjectAltNames[]': enforced('BackendTls.verifySubjectAltNames'),
  'tls.alpnProtocols[]': enforced(
    'BackendTls.alpnProtocols',
    'offered as written; the connection speaks the h2 or http/1.1 the backend selects (HTTP/2 edges need h2 in the list), any other selection fails the connection (test/proxy/upstream-connection.test.ts)',
  ),
  'tls.keyExchangeGroups[]': enforced(
    'BackendTls.keyExchangeGroups',
    "only these groups are offered; X25519_MLKEM768 needs OpenSSL 3.5 (Node 24, the image's): an older Node NACKs the snapshot naming it (fails closed)",
  ),
});

/** Connection settings every edge kind has. */
export const backendConnection: CoverageTable = {
  'http.requestTimeout': enforced(
    'BackendRef.requestTimeoutMs',
    "HTTP backends (static, a2a, Service, dynamicForwardProxy, AgentCore): each try's deadline unless the route sets timeouts.backendRequest (test/proxy/backend-request-timeout.test.ts); AI providers: AiProviderEdge.requestTimeoutMs; MCP edges: the bound of each call to a target unless the route sets timeouts (test/proxy/mcp-timeouts.test.ts)",
  ),
  'http.version': enforced(
    'AiProviderEdge.httpVersion',
    'AI providers: HTTP2 is ALPN h2 on https, prior knowledge on http, by the HTTP/2 client of HTTP backends (test/proxy/upstream-http-version.test.ts)',
  ),
};

/** `tunnel`: security, an egress rule may depend on it; a tunnel that cannot be built leaves the edge out (fails closed). */
export const backendTunnel: CoverageTable = guarding({
  'tunnel.url': enforced(
    'UpstreamTunnel.host',
    'static, a2a, Service (HTTP/1.1 and HTTP/2 edges), AgentCore (always CONNECT to its https endpoint; the SigV4 signature is unchanged), MCP targets, AI providers and GwModel providers: an https URL means TLS to the proxy; HTTP/2 edges always CONNECT (test/proxy/upstream-tunnel.test.ts, upstream-connection.test.ts, upstream-model-connection.test.ts, agentcore.test.ts)',
  ),
  'tunnel.mode': enforced(
    'UpstreamTunnel.connectAlways',
    'Connect: always CONNECT; Auto: absolute-form for plaintext HTTP upstreams, CONNECT for TLS ones',
  ),
  'tunnel.secretRef.*': enforced(
    'UpstreamTunnel.proxyAuthorization',
    "Proxy-Authorization: Basic from the Secret's username and password",
  ),
  'tunnel.backendRef.*': enforced(
    'UpstreamTunnel.host',
    'a Service (its cluster name and port) or a static GwBackend (plain HTTP to it), with the ReferenceGrant rules of policy backendRefs',
  ),
});

/** How connections are dialled: the proxy's one upstream dialer (proxy/http/upstream-dial.ts) on every HTTP/1.1 upstream. */
export const backendDial: CoverageTable = {
  'tcp.connectTimeout': enforced(
    'UpstreamTcp.connectTimeoutMs',
    'TCP connect, tunnel set-up and TLS handshake; static, a2a, Service, AgentCore (HTTP/1.1 and HTTP/2 edges), MCP targets and AI providers',
  ),
  'tcp.keepalive.time': enforced(
    'UpstreamTcp.keepaliveTimeMs',
    'idle time before the first probe; HTTP/1.1 and HTTP/2 edges alike',
  ),
  'tcp.keepalive.interval': enforced(
    'UpstreamTcp.keepaliveIntervalMs',
    "needs Node 24 (the image's): an older Node NACKs the snapshot naming the field",
  ),
  'tcp.keepalive.retries': enforced(
    'UpstreamTcp.keepaliveProbes',
    "needs Node 24 (the image's): an older Node NACKs the snapshot naming the field",
  ),
  ...backendTunnel,
};

export const backendHealth: CoverageTable = {
  'health.consecutiveFailures': enforced(
    'OutlierDetection.consecutiveFailures',
    "HTTP (static, a2a, Service, AgentCore) edges eject from the route's pool, MCP targets from their backend's (left out of sessions and lists, calls fail fast), AI providers from their backend's; refused on dynamicForwardProxy edges",
  ),
  'health.ejectionDuration': enforced('OutlierDetection.baseEjectionMs', 'doubled per repeated ejection up to 300s'),
  'health.maxEjectionPercent': enforced('OutlierDetection.maxEjectionPercent'),
  'health.unhealthyCondition': enforced(
    'OutlierDetection.unhealthyCondition',
    'CEL over response.code and response.headers, compiled once per snapshot, in place of the default 5xx/429 rule (HTTP backends, AI providers); connect failures, resets and timeouts always count; refused on MCP edges',
  ),
};

export const backendTransformation: CoverageTable = {
  'transformation.*': enforced(
    'BackendRef.transformation',
    'edges to HTTP backends (static, a2a, dynamicForwardProxy, aws); on AI edges each provider applies it (AiProviderEdge.transformation); refused on status on MCP edges',
  ),
};

/** Per AI provider `policies.transformation`: the LLM forwarder applies it on each call to that provider. */
export const providerTransformation: CoverageTable = {
  'transformation.*': enforced(
    'AiProviderEdge.transformation',
    "request step on each call to this provider (its body in the provider's format); response step's header edits on the answer the client gets; a response step that reads or replaces the body is refused on status",
  ),
};

/** Guards of LLM prompts and answers. */
export const promptGuard = (at: string): CoverageTable =>
  guarding({
    [`${at}.streaming`]: enforced(
      'PromptGuard.streaming',
      'Buffered: response guards check a streamed answer held whole (GUARDRAIL_STREAM_BUFFER_BYTES, more is 502) before any of it is sent; Disabled: streams pass unchecked',
    ),
    [`${at}.request[].regex.*`]: enforced('RegexGuard.patterns'),
    [`${at}.response[].regex.*`]: enforced('RegexGuard.patterns'),
    [`${at}.request[].webhook.*`]: enforced('WebhookGuard.host'),
    [`${at}.response[].webhook.*`]: enforced('WebhookGuard.host'),
    [`${at}.request[].customResponse.*`]: enforced('RegexGuard.rejectMessage'),
    [`${at}.response[].customResponse.*`]: enforced('RegexGuard.rejectMessage'),
    [`${at}.request[].openAIModeration.*`]: enforced(
      'PromptGuardStep.moderation',
      "OpenAI's /moderations (GW_OPENAI_BASE_URL) checks the prompt; Reject answers the customResponse",
    ),
    [`${at}.request[].bedrockGuardrails.*`]: enforced(
      'PromptGuardStep.bedrockGuardrails',
      "Bedrock's ApplyGuardrail (SigV4 or API key) checks the prompt; blocked: customResponse, anonymized: masked",
    ),
    [`${at}.response[].bedrockGuardrails.*`]: enforced(
      'PromptGuardStep.bedrockGuardrails',
      "Bedrock's ApplyGuardrail checks the answer (streamed ones with streaming Buffered); blocked: customResponse, anonymized: masked",
    ),
    [`${at}.request[].googleModelArmor.*`]: enforced(
      'PromptGuardStep.modelArmor',
      "Model Armor's sanitizeUserPrompt (service-account token) checks the prompt; MATCH_FOUND: customResponse",
    ),
    [`${at}.response[].googleModelArmor.*`]: enforced(
      'PromptGuardStep.modelArmor',
      "Model Armor's sanitizeModelResponse checks the answer (streamed ones with streaming Buffered); MATCH_FOUND: customResponse",
    ),
  });

export const backendAi: CoverageTable = {
  'ai.defaults[].*': enforced('AiProviderEdge.defaults'),
  'ai.overrides[].*': enforced('AiProviderEdge.overrides'),
  'ai.modelAliases': enforced('AiProviderEdge.modelAliases'),
  'ai.prompt.prepend[].*': enforced('AiProviderEdge.promptPrepend'),
  'ai.prompt.append[].*': enforced('AiProviderEdge.promptAppend'),
  'ai.routes': enforced('AiEdge.routes'),
  'ai.promptCaching.*': enforced(
    'AiProviderEdge.promptCaching',
    'cache_control breakpoints (Anthropic) and cachePoints (Bedrock Converse) for the model families that take them; other providers and families are named on status',
  ),
  'ai.transformations[].*': enforced(
    'AiProviderEdge.transformations',
    'CEL per field on the chat request; outranks defaults, overrides, prompt enrichment and the model setting',
  ),
  'ai.finalTransformations[].*': enforced(
    'AiProviderEdge.finalTransformations',
    "CEL per field on the body in the provider's format",
  ),
  ...promptGuard('ai.promptGuard'),
};

/** MCP guardrails, authentication and authorization. */
export const backendMcp: CoverageTable = guarding({
  'mcp.guardrails.*': enforced('BackendRef.mcpGuardrails'),
  'mcp.authentication.*': enforced(
    'Policy.mcpAuthentication',
    "the route's MCP token check, as traffic.jwtAuthentication.mcp; keys by jwks.url, or jwks.backendRef with the backend's TLS (McpAuthentication.jwksTls); clientSecretRef added to relayed authorization_code / refresh_token requests for clientId (McpAuthentication.clientSecret)",
  ),
  'mcp.authorization.*': enforced('Policy.authorization', "joined to the route's rules, one evaluation"),
});

export const backendExtAuth: CoverageTable = guarding({
  'extAuth.*': enforced(
    'Policy.backendExtAuthorization',
    'asked after routing, after traffic.extAuth, when every edge shares it; otherwise per edge (BackendRef.extAuthorization) once the weighted pick chose it, per MCP target (BackendRef.targetExtAuthorization) before each client request reaching that target, per AI provider (AiProviderEdge.extAuthorization) before each try of that provider',
  ),
});

/** The full backend settings (GwPolicy `backend`, GwBackend `policies`). */
export const backendFull: CoverageTable = {
  ...backendAuth,
  ...backendTls,
  ...backendConnection,
  ...backendHealth,
  ...backendTransformation,
  ...backendAi,
  ...backendMcp,
  ...backendExtAuth,
  // A route → backend edge's version: forwarded HTTP backends (AgentCore too) and MCP targets apply it, AI
  // edges pass it to each provider (httpVersionOf in route-backends.ts).
  'http.version': enforced(
    'BackendRef.httpVersion',
    "HTTP backends: HTTP2 is h2c prior knowledge on http, ALPN h2 on https; AgentCore: ALPN h2 with AWS's TLS (test/proxy/agentcore.test.ts); MCP edges: the same for each remote target without its own (test/proxy/mcp-target-http-version.test.ts); AI edges pass it to each provider (AiProviderEdge.httpVersion)",
  ),
  ...backendDial,
};
