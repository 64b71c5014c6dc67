// One provider of an LLM route as the forwarder tries it: its own file so that the route compiler and
// GwModel routing (which builds providers too) can both name it without importing each other.
import type { AiProviderEdge__Output as AiProviderEdge } from '../../ir/gen/gw/ir/v1/AiProviderEdge.js';
import type { CredentialLocation__Output as CredentialLocation } from '../../ir/gen/gw/ir/v1/CredentialLocation.js';
import type { OpenAiModeration__Output as OpenAiModeration } from '../../ir/gen/gw/ir/v1/OpenAiModeration.js';
import type { VendorEndpoint } from './vendors.js';
import type { CompiledTransformations } from './field-transformations.js';

export interface LlmProvider {
  /** Provider name (unique in the backend): metric label, log field, health key part. */
  name: string;
  kind: string;
  endpoint: VendorEndpoint;
  /** `custom.providerOverride`: the provider label of gw_llm_requests_total / gw_llm_tokens_total instead of `name`. */
  metricsProvider?: string;
  /** The vendor settings' `model`: when set it replaces the request's model. */
  model?: string;
  /** Shaping and credential of this provider on this edge; unset fields mean none. */
  edge?: AiProviderEdge;
  /** `transformations` / `finalTransformations` of this provider on this edge (or of the GwModel), compiled once per snapshot. */
  transformations?: CompiledTransformations;
  /** `backend.http.requestTimeout` of the provider on this edge, in ms; 0 means none. */
  requestTimeoutMs: number;
  /** GwModel `policies.auth.location`: where the credential goes instead of the vendor's own header. */
  credentialLocation?: CredentialLocation | null;
  /** GwModel `policies.auth.credentials`: further keys, each at its own location. Secret: never log them. */
  extraCredentials?: { key: string; location: CredentialLocation | null }[];
  /** `openai.moderation`: the prompt and answer are checked at `endpoint.moderationPath` (src/proxy/llm/moderation.ts). */
  moderation?: OpenAiModeration;
}
