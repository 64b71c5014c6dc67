// Coverage of GwModel: the model's match and target, and the provider `policies` the proxy reads
// from ModelProvider.policiesJson (anything it cannot apply refuses the model there, and here).
import { backendTls, backendTunnel, promptGuard } from './backend-policy.js';
import { enforced, guarding, under, type CoverageTable } from './types.js';

const policies: CoverageTable = {
  ...guarding({
    'auth.key': enforced('ModelProvider.credential'),
    'auth.secretRef.*': enforced('ModelProvider.credential'),
    'auth.passthrough.*': enforced('ModelProvider.credential'),
    'auth.aws.*': enforced('ModelProvider.credential'),
    'auth.azure.*': enforced('ModelProvider.credential'),
    'auth.gcp.*': enforced('ModelProvider.credential'),
    'auth.oauthTokenExchange.*': enforced(
      'ModelProvider.credential',
      'AiCredential.tokenExchange, as on GwPolicy backend.auth; the endpoint by url or backendRef',
    ),
    'auth.location.*': enforced('ModelProvider.credentialLocation'),
    'auth.credentials[].*': enforced('ModelProvider.extraCredentials'),
    'authorization.*': enforced(
      'Model.authorization',
      'CEL over jwt, request, llmRequest and apiKey; a virtual model sends a request only to targets whose own rules allow it',
    ),
  }),
  // The same steps and proxy code as GwPolicy backend.ai.promptGuard, run for requests this model serves.
  ...promptGuard('promptGuard'),
  'headers.*': enforced(
    'ModelProvider.requestHeaders',
    'the request sent to the provider, by the code of traffic.headerModifiers; the credential is added after them',
  ),
  // The same resolution (translate/backends) and dialer (proxy/http/upstream-dial.ts) as GwPolicy backend.tls / tunnel.
  ...backendTls,
  ...backendTunnel,
  'health.consecutiveFailures': enforced(
    'ModelProvider.health',
    "a failing provider model is left out of its virtual models' failover while ejected",
  ),
  'health.ejectionDuration': enforced('ModelProvider.health'),
  'health.maxEjectionPercent': enforced('ModelProvider.health', 'of the targets of the virtual model that chose it'),
  'health.unhealthyCondition': enforced(
    'ModelProvider.health',
    'CEL over response.code and response.headers in place of the default 5xx/429 rule, by the code of backend.health',
  ),
  'transformations[].*': enforced(
    'ModelProvider.transformations',
    'CEL per field on the chat request, by the same code as backend.ai.transformations',
  ),
  'finalTransformations[].*': enforced(
    'ModelProvider.finalTransformations',
    "CEL per field on the body in the provider's format, by the same code as backend.ai.finalTransformations",
  ),
};

export const gwModelCoverage: CoverageTable = {
  'spec.parentRefs[].*': enforced('Model.parents'),
  'spec.match.model': enforced('Model.match'),
  'spec.visibility': enforced('Model.visibility'),
  'spec.provider': enforced(
    'ModelProvider.provider',
    'every provider has a wire kind (src/translate/models/model-refusals.ts MODEL_KINDS); Cohere is converted to and from its v2 chat API',
  ),
  'spec.baseURL': enforced('ModelProvider.baseUrl'),
  'spec.azure.*': enforced('ModelProvider.settings'),
  'spec.vertexai.*': enforced('ModelProvider.settings'),
  'spec.bedrock.*': enforced('ModelProvider.settings'),
  ...guarding({ 'spec.bedrock.guardrail.*': enforced('ModelProvider.settings') }),
  'spec.custom.*': enforced('ModelProvider.settings'),
  'spec.custom.backendRef.*': enforced(
    'ModelProvider.baseUrl',
    'a Service at its cluster DNS name; an InferencePool as ModelProvider.inferencePool (its ready Pods, asked of its endpoint picker over ext_proc, else in turn)',
  ),
  'spec.custom.providerOverride': enforced(
    'AiProviderSettings.providerOverride',
    'the provider label of gw_llm_requests_total and gw_llm_tokens_total',
  ),
  'spec.virtualModel.failover.targets[].*': enforced('ModelRouting.targets'),
  'spec.virtualModel.conditional.targets[].*': enforced('ModelRouting.targets'),
  'spec.virtualModel.weighted.targets[].*': enforced('ModelRouting.targets'),
  ...under('spec.policies', policies),
};
