// Original file: proto/gw/ir/v1/ir_translate.proto

import type { RegexGuardAction as _gw_ir_v1_RegexGuardAction, RegexGuardAction__Output as _gw_ir_v1_RegexGuardAction__Output } from '../../../gw/ir/v1/RegexGuardAction.js';
import type { AiCredential as _gw_ir_v1_AiCredential, AiCredential__Output as _gw_ir_v1_AiCredential__Output } from '../../../gw/ir/v1/AiCredential.js';

/**
 * `googleModelArmor` resolved: `POST /v1/projects/{project_id}/locations/{location}/templates/{template_id}:
 * sanitizeUserPrompt` (request) or `:sanitizeModelResponse` (response) at modelarmor.<location>.rep.googleapis.com.
 */
export interface ModelArmorGuard {
  'templateId'?: (string);
  'projectId'?: (string);
  'location'?: (string);
  'action'?: (_gw_ir_v1_RegexGuardAction);
  /**
   * `policies.auth`: `gcp` (a service account's access token) or `key` (sent as a bearer token). Secret.
   */
  'credential'?: (_gw_ir_v1_AiCredential | null);
  'rejectStatus'?: (number);
  'rejectMessage'?: (string);
}

/**
 * `googleModelArmor` resolved: `POST /v1/projects/{project_id}/locations/{location}/templates/{template_id}:
 * sanitizeUserPrompt` (request) or `:sanitizeModelResponse` (response) at modelarmor.<location>.rep.googleapis.com.
 */
export interface ModelArmorGuard__Output {
  'templateId': (string);
  'projectId': (string);
  'location': (string);
  'action': (_gw_ir_v1_RegexGuardAction__Output);
  /**
   * `policies.auth`: `gcp` (a service account's access token) or `key` (sent as a bearer token). Secret.
   */
  'credential': (_gw_ir_v1_AiCredential__Output | null);
  'rejectStatus': (number);
  'rejectMessage': (string);
}
