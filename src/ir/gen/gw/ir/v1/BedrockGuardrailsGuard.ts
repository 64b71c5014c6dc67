// Original file: proto/gw/ir/v1/ir_translate.proto

import type { RegexGuardAction as _gw_ir_v1_RegexGuardAction, RegexGuardAction__Output as _gw_ir_v1_RegexGuardAction__Output } from '../../../gw/ir/v1/RegexGuardAction.js';
import type { AiCredential as _gw_ir_v1_AiCredential, AiCredential__Output as _gw_ir_v1_AiCredential__Output } from '../../../gw/ir/v1/AiCredential.js';
import type { CredentialLocation as _gw_ir_v1_CredentialLocation, CredentialLocation__Output as _gw_ir_v1_CredentialLocation__Output } from '../../../gw/ir/v1/CredentialLocation.js';

/**
 * `bedrockGuardrails` resolved: `POST /guardrail/{identifier}/version/{version}/apply` at
 * bedrock-runtime.<region>.amazonaws.com (docs/guardrails.md).
 */
export interface BedrockGuardrailsGuard {
  'identifier'?: (string);
  'version'?: (string);
  /**
   * The endpoint's region, and the SigV4 signing region unless the credential names its own.
   */
  'region'?: (string);
  /**
   * REJECT (default) answers a blocked text with reject_status; AUDIT logs it and lets it pass.
   */
  'action'?: (_gw_ir_v1_RegexGuardAction);
  /**
   * `policies.auth`: `aws` (SigV4, service `bedrock`; empty keys mean the proxy's environment) or `key` (a
   * Bedrock API key, placed by key_location). Never unset: no auth means the proxy's AWS environment. Secret.
   */
  'credential'?: (_gw_ir_v1_AiCredential | null);
  'rejectStatus'?: (number);
  'rejectMessage'?: (string);
  /**
   * Where a `key` credential goes (`policies.auth.location`); unset means `Authorization: Bearer <key>`.
   */
  'keyLocation'?: (_gw_ir_v1_CredentialLocation | null);
}

/**
 * `bedrockGuardrails` resolved: `POST /guardrail/{identifier}/version/{version}/apply` at
 * bedrock-runtime.<region>.amazonaws.com (docs/guardrails.md).
 */
export interface BedrockGuardrailsGuard__Output {
  'identifier': (string);
  'version': (string);
  /**
   * The endpoint's region, and the SigV4 signing region unless the credential names its own.
   */
  'region': (string);
  /**
   * REJECT (default) answers a blocked text with reject_status; AUDIT logs it and lets it pass.
   */
  'action': (_gw_ir_v1_RegexGuardAction__Output);
  /**
   * `policies.auth`: `aws` (SigV4, service `bedrock`; empty keys mean the proxy's environment) or `key` (a
   * Bedrock API key, placed by key_location). Never unset: no auth means the proxy's AWS environment. Secret.
   */
  'credential': (_gw_ir_v1_AiCredential__Output | null);
  'rejectStatus': (number);
  'rejectMessage': (string);
  /**
   * Where a `key` credential goes (`policies.auth.location`); unset means `Authorization: Bearer <key>`.
   */
  'keyLocation': (_gw_ir_v1_CredentialLocation__Output | null);
}
