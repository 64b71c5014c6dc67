// Coverage of GwBackend: the backend kinds, their targets and providers, and their own `policies`.
import {
  backendAi,
  backendAuth,
  backendConnection,
  backendDial,
  backendFull,
  backendHealth,
  backendTls,
  providerTransformation,
} from './backend-policy.js';
import { enforced, guarding, under, type CoverageTable } from './types.js';

/** One AI provider (`ai.provider` or `ai.groups[].providers[]`): vendor settings travel typed (AiProviderSettings). */
const provider: CoverageTable = {
  host: enforced('AiProvider.host'),
  port: enforced('AiProvider.port'),
  path: enforced('AiProvider.path'),
  pathPrefix: enforced('AiProvider.pathPrefix'),
  'openai.model': enforced('AiProvider.settings'),
  ...guarding({
    'openai.moderation.*': enforced(
      'AiProviderSettings.moderation',
      "the provider's /moderations endpoint checks the prompt and the answer, a streamed one held whole (GUARDRAIL_STREAM_BUFFER_BYTES) and checked before any of it is sent (Block → 403 content_flagged)",
    ),
  }),
  'azureopenai.*': enforced('AiProvider.settings'),
  'azure.*': enforced('AiProvider.settings'),
  'anthropic.*': enforced('AiProvider.settings'),
  'gemini.*': enforced('AiProvider.settings'),
  'vertexai.*': enforced('AiProvider.settings'),
  'bedrock.*': enforced('AiProvider.settings'),
  // Bedrock applies this guardrail itself; the proxy sends it with every Converse call.
  ...guarding({ 'bedrock.guardrail.*': enforced('AiProvider.settings') }),
  'custom.*': enforced('AiProvider.settings'),
  'custom.providerOverride': enforced(
    'AiProviderSettings.providerOverride',
    'the provider label of gw_llm_requests_total and gw_llm_tokens_total',
  ),
};

/** A provider of a priority group also has a name and its own settings. */
const groupProvider: CoverageTable = {
  ...provider,
  name: enforced('AiProvider.name'),
  ...under('policies', {
    ...backendAuth,
    ...backendTls,
    ...backendConnection,
    ...backendDial,
    ...backendHealth,
    ...providerTransformation,
    ...backendAi,
  }),
};

/** Per-target settings of an MCP `static` target: the credential, TLS, tunnel, TCP and HTTP settings reach the target. */
const mcpTargetPolicies: CoverageTable = {
  ...backendAuth,
  'http.requestTimeout': enforced(
    'BackendRef.targetRequestTimeoutMs',
    'the bound of each call to this target unless the route sets timeouts (test/proxy/mcp-timeouts.test.ts)',
  ),
  'http.version': enforced(
    'BackendRef.targetHttpVersions',
    'HTTP2: h2c prior knowledge on http, ALPN h2 alone on https (streamable HTTP and legacy SSE targets, through tunnels by CONNECT); HTTP1: HTTP/1.1 only, h2 left out of an ALPN list (test/proxy/mcp-target-http-version.test.ts)',
  ),
  ...backendDial,
  ...backendTls,
};

export const gwBackendCoverage: CoverageTable = {
  'spec.static.*': enforced('Backend.static'),
  'spec.a2a.*': enforced(
    'Backend.a2a',
    'forwarded to host:port; agent cards (public and extended) rewritten to the gateway, JSON-RPC interfaces only, signatures dropped; JSON-RPC calls read for CEL a2a.* under their 1.0 names (0.3 names too), refusals as JSON-RPC errors, per-method metrics and RPC spans (test/proxy/a2a.test.ts)',
  ),
  ...guarding({
    'spec.dynamicForwardProxy.allowedDestinations[]': enforced(
      'DynamicForwardProxyBackend.allowedDestinations',
      'loopback, link-local, private, unspecified and own addresses are refused (403) unless listed',
    ),
  }),
  'spec.aws.agentCore.agentRuntimeArn': enforced('AwsBackend.agentRuntimeArn'),
  'spec.aws.agentCore.qualifier': enforced('AwsBackend.qualifier'),
  'spec.mcp.prefixMode': enforced('McpBackend.prefixMode'),
  'spec.mcp.failureMode': enforced('McpBackend.failureMode'),
  'spec.mcp.sessionRouting': enforced('McpBackend.sessionRouting'),
  'spec.mcp.targets[].name': enforced('McpTarget.name'),
  'spec.mcp.targets[].selector.*': enforced('McpTarget.remote', 'resolved to one target per matching Service'),
  'spec.mcp.targets[].static.*': enforced('RemoteTarget.url'),
  'spec.mcp.targets[].static.protocol': enforced('RemoteTarget.protocol'),
  ...under('spec.mcp.targets[].static.policies', mcpTargetPolicies),
  ...under('spec.ai.provider', provider),
  ...under('spec.ai.groups[].providers[]', groupProvider),
  ...under('spec.policies', backendFull),
};
