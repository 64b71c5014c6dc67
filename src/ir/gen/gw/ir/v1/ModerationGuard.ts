// Original file: proto/gw/ir/v1/ir_translate.proto

import type { RegexGuardAction as _gw_ir_v1_RegexGuardAction, RegexGuardAction__Output as _gw_ir_v1_RegexGuardAction__Output } from '../../../gw/ir/v1/RegexGuardAction.js';
import type { AiCredential as _gw_ir_v1_AiCredential, AiCredential__Output as _gw_ir_v1_AiCredential__Output } from '../../../gw/ir/v1/AiCredential.js';

export interface ModerationGuard {
  /**
   * The moderation model; the translator fills the API default `omni-moderation-latest`.
   */
  'model'?: (string);
  /**
   * AUDIT logs and counts a flagged prompt and lets it pass; REJECT (default) answers with reject_status.
   */
  'action'?: (_gw_ir_v1_RegexGuardAction);
  /**
   * `policies.auth` resolved (`key`, or the Secret `secretRef` names). Secret: never log it.
   */
  'credential'?: (_gw_ir_v1_AiCredential | null);
  'rejectStatus'?: (number);
  'rejectMessage'?: (string);
}

export interface ModerationGuard__Output {
  /**
   * The moderation model; the translator fills the API default `omni-moderation-latest`.
   */
  'model': (string);
  /**
   * AUDIT logs and counts a flagged prompt and lets it pass; REJECT (default) answers with reject_status.
   */
  'action': (_gw_ir_v1_RegexGuardAction__Output);
  /**
   * `policies.auth` resolved (`key`, or the Secret `secretRef` names). Secret: never log it.
   */
  'credential': (_gw_ir_v1_AiCredential__Output | null);
  'rejectStatus': (number);
  'rejectMessage': (string);
}
