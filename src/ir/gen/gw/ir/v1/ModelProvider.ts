// Original file: proto/gw/ir/v1/ir_translate.proto

import type { AiCredential as _gw_ir_v1_AiCredential, AiCredential__Output as _gw_ir_v1_AiCredential__Output } from '../../../gw/ir/v1/AiCredential.js';
import type { AiProviderSettings as _gw_ir_v1_AiProviderSettings, AiProviderSettings__Output as _gw_ir_v1_AiProviderSettings__Output } from '../../../gw/ir/v1/AiProviderSettings.js';
import type { CredentialLocation as _gw_ir_v1_CredentialLocation, CredentialLocation__Output as _gw_ir_v1_CredentialLocation__Output } from '../../../gw/ir/v1/CredentialLocation.js';
import type { PlacedKey as _gw_ir_v1_PlacedKey, PlacedKey__Output as _gw_ir_v1_PlacedKey__Output } from '../../../gw/ir/v1/PlacedKey.js';
import type { OutlierDetection as _gw_ir_v1_OutlierDetection, OutlierDetection__Output as _gw_ir_v1_OutlierDetection__Output } from '../../../gw/ir/v1/OutlierDetection.js';
import type { InferencePoolTarget as _gw_ir_v1_InferencePoolTarget, InferencePoolTarget__Output as _gw_ir_v1_InferencePoolTarget__Output } from '../../../gw/ir/v1/InferencePoolTarget.js';
import type { HeaderModifier as _gw_ir_v1_HeaderModifier, HeaderModifier__Output as _gw_ir_v1_HeaderModifier__Output } from '../../../gw/ir/v1/HeaderModifier.js';
import type { AiFieldTransformation as _gw_ir_v1_AiFieldTransformation, AiFieldTransformation__Output as _gw_ir_v1_AiFieldTransformation__Output } from '../../../gw/ir/v1/AiFieldTransformation.js';
import type { BackendTls as _gw_ir_v1_BackendTls, BackendTls__Output as _gw_ir_v1_BackendTls__Output } from '../../../gw/ir/v1/BackendTls.js';
import type { UpstreamTunnel as _gw_ir_v1_UpstreamTunnel, UpstreamTunnel__Output as _gw_ir_v1_UpstreamTunnel__Output } from '../../../gw/ir/v1/UpstreamTunnel.js';

export interface ModelProvider {
  'provider'?: (string);
  'baseUrl'?: (string);
  /**
   * @deprecated
   */
  'settingsJson'?: (string);
  /**
   * @deprecated
   */
  'policiesJson'?: (string);
  /**
   * `policies.auth` resolved by the controller (`key`, the Secret `secretRef` names, or `passthrough`).
   * Unset with `policies.auth.secretRef` in policies_json means the Secret could not be resolved: the
   * proxy refuses the model. Secret: never log it.
   */
  'credential'?: (_gw_ir_v1_AiCredential | null);
  /**
   * `spec.azure|vertexai|bedrock|custom` of the GwModel, typed; settings_json/policies_json are
   * provenance only (deprecated: no proxy code reads them).
   */
  'settings'?: (_gw_ir_v1_AiProviderSettings | null);
  /**
   * The wire API the proxy speaks to `spec.provider` (openai, anthropic, gemini, bedrock, azure, vertexai
   * or custom); decided by the translator, which refuses providers it has no kind for.
   */
  'kind'?: (string);
  /**
   * Set when `spec.policies.auth` names a credential the controller could not resolve (the GwModel's
   * ResolvedRefs says why): the proxy answers `credential_missing` rather than call the vendor without it.
   */
  'credentialProblem'?: (string);
  /**
   * `spec.policies.auth.location`: where the credential goes instead of the vendor's own header (unset: there).
   */
  'credentialLocation'?: (_gw_ir_v1_CredentialLocation | null);
  /**
   * `spec.policies.auth.credentials`: further keys, each sent at its own location.
   */
  'extraCredentials'?: (_gw_ir_v1_PlacedKey)[];
  /**
   * `spec.policies.health`: when this model is left out of its virtual models' failover; unset means the
   * proxy's default LLM backoff (docs/proxy.md "Passive health").
   */
  'health'?: (_gw_ir_v1_OutlierDetection | null);
  /**
   * `spec.custom.backendRef` to an InferencePool: the pool's endpoints and endpoint picker. Set, the
   * proxy calls the endpoint the picker names (or, without a picker, the pool's endpoints in turn) at
   * base_url's path; base_url's host is never dialled.
   */
  'inferencePool'?: (_gw_ir_v1_InferencePoolTarget | null);
  /**
   * Set when `spec.custom.backendRef` does not resolve (the GwModel's ResolvedRefs says why): the proxy
   * answers 503 no_backend rather than call anything else.
   */
  'backendProblem'?: (string);
  /**
   * `spec.policies.headers`: header changes of the request sent to the provider, applied by the code of
   * `traffic.headerModifiers` before the credential is added (which they cannot replace or remove).
   */
  'requestHeaders'?: (_gw_ir_v1_HeaderModifier | null);
  /**
   * `spec.policies.transformations` / `finalTransformations`: applied by the same code as an `ai` edge's.
   */
  'transformations'?: (_gw_ir_v1_AiFieldTransformation)[];
  'finalTransformations'?: (_gw_ir_v1_AiFieldTransformation)[];
  /**
   * `spec.policies.tls`, resolved as GwPolicy `backend.tls` is: the provider is called over TLS with these
   * settings (whatever the baseURL's scheme); unset means system roots for an https baseURL, plain HTTP otherwise.
   */
  'tls'?: (_gw_ir_v1_BackendTls | null);
  /**
   * `spec.policies.tunnel`, resolved as GwPolicy `backend.tunnel` is: the provider's connections go through
   * this forward proxy (src/proxy/http/upstream-dial.ts).
   */
  'tunnel'?: (_gw_ir_v1_UpstreamTunnel | null);
}

export interface ModelProvider__Output {
  'provider': (string);
  'baseUrl': (string);
  /**
   * @deprecated
   */
  'settingsJson': (string);
  /**
   * @deprecated
   */
  'policiesJson': (string);
  /**
   * `policies.auth` resolved by the controller (`key`, the Secret `secretRef` names, or `passthrough`).
   * Unset with `policies.auth.secretRef` in policies_json means the Secret could not be resolved: the
   * proxy refuses the model. Secret: never log it.
   */
  'credential': (_gw_ir_v1_AiCredential__Output | null);
  /**
   * `spec.azure|vertexai|bedrock|custom` of the GwModel, typed; settings_json/policies_json are
   * provenance only (deprecated: no proxy code reads them).
   */
  'settings': (_gw_ir_v1_AiProviderSettings__Output | null);
  /**
   * The wire API the proxy speaks to `spec.provider` (openai, anthropic, gemini, bedrock, azure, vertexai
   * or custom); decided by the translator, which refuses providers it has no kind for.
   */
  'kind': (string);
  /**
   * Set when `spec.policies.auth` names a credential the controller could not resolve (the GwModel's
   * ResolvedRefs says why): the proxy answers `credential_missing` rather than call the vendor without it.
   */
  'credentialProblem': (string);
  /**
   * `spec.policies.auth.location`: where the credential goes instead of the vendor's own header (unset: there).
   */
  'credentialLocation': (_gw_ir_v1_CredentialLocation__Output | null);
  /**
   * `spec.policies.auth.credentials`: further keys, each sent at its own location.
   */
  'extraCredentials': (_gw_ir_v1_PlacedKey__Output)[];
  /**
   * `spec.policies.health`: when this model is left out of its virtual models' failover; unset means the
   * proxy's default LLM backoff (docs/proxy.md "Passive health").
   */
  'health': (_gw_ir_v1_OutlierDetection__Output | null);
  /**
   * `spec.custom.backendRef` to an InferencePool: the pool's endpoints and endpoint picker. Set, the
   * proxy calls the endpoint the picker names (or, without a picker, the pool's endpoints in turn) at
   * base_url's path; base_url's host is never dialled.
   */
  'inferencePool': (_gw_ir_v1_InferencePoolTarget__Output | null);
  /**
   * Set when `spec.custom.backendRef` does not resolve (the GwModel's ResolvedRefs says why): the proxy
   * answers 503 no_backend rather than call anything else.
   */
  'backendProblem': (string);
  /**
   * `spec.policies.headers`: header changes of the request sent to the provider, applied by the code of
   * `traffic.headerModifiers` before the credential is added (which they cannot replace or remove).
   */
  'requestHeaders': (_gw_ir_v1_HeaderModifier__Output | null);
  /**
   * `spec.policies.transformations` / `finalTransformations`: applied by the same code as an `ai` edge's.
   */
  'transformations': (_gw_ir_v1_AiFieldTransformation__Output)[];
  'finalTransformations': (_gw_ir_v1_AiFieldTransformation__Output)[];
  /**
   * `spec.policies.tls`, resolved as GwPolicy `backend.tls` is: the provider is called over TLS with these
   * settings (whatever the baseURL's scheme); unset means system roots for an https baseURL, plain HTTP otherwise.
   */
  'tls': (_gw_ir_v1_BackendTls__Output | null);
  /**
   * `spec.policies.tunnel`, resolved as GwPolicy `backend.tunnel` is: the provider's connections go through
   * this forward proxy (src/proxy/http/upstream-dial.ts).
   */
  'tunnel': (_gw_ir_v1_UpstreamTunnel__Output | null);
}
