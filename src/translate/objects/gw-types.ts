// Names for the parts of the src/api schema types that translator functions pass around. All are derived from
// the schema's Static types, never redeclared: the schema names whole kinds and a few pieces, the translator
// hands smaller pieces (one provider, one auth object) from function to function.
import type {
  BackendAuth,
  BackendFull,
  GwBackendSpec,
  GwModelSpec,
  GwParametersSpec,
  GwPolicySpec,
  LLMProvider,
  NamedLLMProvider,
  TrafficPolicy,
} from '../../api/index.js';

/** Each Gw kind's spec type. */
export interface GwSpecs {
  GwBackend: GwBackendSpec;
  GwModel: GwModelSpec;
  GwParameters: GwParametersSpec;
  GwPolicy: GwPolicySpec;
}

export type GwKind = keyof GwSpecs;

/** The CEL authorization of traffic.authorization, frontend.networkAuthorization and backend.mcp: one schema. */
export type AuthorizationSpec = NonNullable<TrafficPolicy['authorization']>;

export type BackendAi = NonNullable<BackendFull['ai']>;
export type PromptGuardSpec = NonNullable<BackendAi['promptGuard']>;
export type McpSettings = NonNullable<BackendFull['mcp']>;
export type BackendTlsSpec = NonNullable<BackendFull['tls']>;

/** The credential forms every upstream auth object shares (BackendAuth, ModelBackendAuth, a guard's key or secretRef). */
export type CredentialAuth = Pick<BackendAuth, 'key' | 'secretRef' | 'passthrough' | 'aws' | 'azure' | 'gcp'>;

/** An LLM provider of a GwBackend: the single `provider` or a named one of a group (only those carry `policies`). */
export type Provider = LLMProvider & Pick<NamedLLMProvider, 'policies'>;

type Vendor<K extends keyof LLMProvider> = NonNullable<LLMProvider[K]>;
/**
 * Every vendor's settings object through one view (each field is set by some vendors only): what the IR
 * settings read from a provider's `<vendor>` object or a GwModel's `azure`/`vertexai`/`bedrock`/`custom`.
 */
export type VendorSettings = Partial<
  Vendor<'openai'> & Vendor<'azureopenai'> & Vendor<'azure'> & Vendor<'vertexai'> & Vendor<'bedrock'> & Vendor<'custom'>
>;

export type McpTargetSpec = NonNullable<GwBackendSpec['mcp']>['targets'][number];
export type PolicyTargetRef = NonNullable<GwPolicySpec['targetRefs']>[number];
export type PolicyTargetSelector = NonNullable<GwPolicySpec['targetSelectors']>[number];
