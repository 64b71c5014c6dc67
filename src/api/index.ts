// Public surface of the Gw API: schemas and their Static types (same names), CRD building and manifest validation.
export {
  GROUP,
  VERSION,
  API_VERSION,
  KINDS,
  kindInfo,
  GwBackend,
  GwModel,
  GwModelList,
  GwParameters,
  GwPolicy,
} from './kinds.js';
export type { KindInfo, PrinterColumn } from './kinds.js';
export { GwBackendSpec, McpTarget, McpTargetSelector, McpBackend } from './backend.js';
export { GwModelSpec, VirtualModel, ModelPolicies, MODEL_PROVIDERS } from './model.js';
export { GwParametersSpec } from './parameters.js';
export { GwPolicySpec, PolicyTargetRef, PolicyTargetSelector } from './policy.js';
export { BackendSimple, BackendWithAI, BackendFull } from './backend-policies.js';
export { Frontend, FrontendHTTP } from './frontend.js';
export {
  TrafficPolicy,
  ExtAuthPolicy,
  ExtProc,
  DirectResponsePolicy,
  LocalRateLimit,
  GlobalRateLimit,
  CORS,
  Timeouts,
  Retry,
} from './traffic.js';
export { LLMProvider, NamedLLMProvider, PriorityGroup, BackendAISpec } from './providers.js';
export { BackendAuth, ModelBackendAuth } from './backend-auth.js';
export { JWTAuthentication, APIKeyAuthentication, BasicAuthentication, Authorization } from './authn.js';
export { BYTE_SIZE_LIMIT, BYTE_SIZE_PATTERN, DURATION_PATTERN } from './schema-kit.js';
export type { CelRule } from './schema-kit.js';
export { buildCrd, buildCrds, toOpenAPI } from './crd.js';
export { validateManifest, parseManifests } from './validate.js';
export type { ParsedManifests } from './validate.js';
export { parseByteSize } from './byte-size.js';

export { variantOf, backendVariant, providerVariant, virtualModelVariant } from './variants.js';
export type { Variant } from './variants.js';
export { BACKEND_TYPES } from './backend.js';
export { PROVIDER_VENDORS } from './providers.js';
export { VIRTUAL_MODEL_STRATEGIES } from './model.js';
