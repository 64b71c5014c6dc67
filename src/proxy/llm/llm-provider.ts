// One provider of an LLM route as the forwarder tries it: its own file so that the route compiler and
// GwModel routing (which builds providers too) can both name it without importing each other.
import type { AiProviderEdge__Output as AiProviderEdge } from '../../ir/gen/gw/ir/v1/AiProviderEdge.js';
import type { CredentialLocation__Output as CredentialLocation } from '../../ir/gen/gw/ir/v1/CredentialLocation.js';
import type { OpenAiModeration__Output as OpenAiModeration } from '../../ir/gen/gw/ir/v1/OpenAiModeration.js';
import type { InferencePoolTarget__Output as InferencePoolTarget } from '../../ir/gen/gw/ir/v1/InferencePoolTarget.js';
import type { VendorEndpoint } from './vendors.js';
import type { OutlierSettings } from '../policy/outlier.js';
import type { LlmGuards } from '../guard/types.js';
import type { HeaderModifier } from '../../ir/types.js';

import type { ExtAuthRoute } from '../auth/ext-auth.js';
import type { CompiledTransformations } from './field-transformations.js';
import type { TransformPlan } from '../policy/transformation.js';

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
  /** The provider's merged `backend.transformation`, compiled once per snapshot (provider-transformation.ts). */
  shaping?: TransformPlan;
  /** `backend.http.requestTimeout` of the provider on this edge, in ms; 0 means none. */
  requestTimeoutMs: number;
  /** GwModel `policies.auth.location`: where the credential goes instead of the vendor's own header. */
  credentialLocation?: CredentialLocation | null;
  /** GwModel `policies.auth.credentials`: further keys, each at its own location. Secret: never log them. */
  extraCredentials?: { key: string; location: CredentialLocation | null }[];
  /** `health` (passive health) of this provider, or of the GwModel; unset: the default LLM backoff. */
  health?: OutlierSettings;
  /** GwModel `policies.headers`: changes of the client's headers sent on, before the credential is added. */
  requestHeaders?: HeaderModifier;
  /** `openai.moderation`: the prompt and answer are checked at `endpoint.moderationPath` (src/proxy/llm/moderation.ts). */
  moderation?: OpenAiModeration;
  /** A GwModel's own `policies.promptGuard`, run after the route's guards (src/proxy/guard, the same code). */
  guards?: LlmGuards;
  /** GwModel custom.backendRef to an InferencePool: each call goes to the endpoint picked from it (endpoint-picker.ts); `endpoint`'s host and port are replaced. */
  pool?: InferencePoolTarget;
  /** The provider's own `backend.extAuth`: asked before each try of this provider (src/proxy/auth/ext-auth.ts). */
  extAuth?: ExtAuthRoute;
}
