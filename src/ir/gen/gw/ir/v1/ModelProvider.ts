// Original file: proto/gw/ir/v1/ir_translate.proto

import type { AiCredential as _gw_ir_v1_AiCredential, AiCredential__Output as _gw_ir_v1_AiCredential__Output } from '../../../gw/ir/v1/AiCredential.js';

export interface ModelProvider {
  'provider'?: (string);
  'baseUrl'?: (string);
  'settingsJson'?: (string);
  'policiesJson'?: (string);
  /**
   * `policies.auth` resolved by the controller (`key`, the Secret `secretRef` names, or `passthrough`).
   * Unset with `policies.auth.secretRef` in policies_json means the Secret could not be resolved: the
   * proxy refuses the model. Secret: never log it.
   */
  'credential'?: (_gw_ir_v1_AiCredential | null);
}

export interface ModelProvider__Output {
  'provider': (string);
  'baseUrl': (string);
  'settingsJson': (string);
  'policiesJson': (string);
  /**
   * `policies.auth` resolved by the controller (`key`, the Secret `secretRef` names, or `passthrough`).
   * Unset with `policies.auth.secretRef` in policies_json means the Secret could not be resolved: the
   * proxy refuses the model. Secret: never log it.
   */
  'credential': (_gw_ir_v1_AiCredential__Output | null);
}
