// Original file: proto/gw/ir/v1/ir_translate.proto

import type { ModelMatch as _gw_ir_v1_ModelMatch, ModelMatch__Output as _gw_ir_v1_ModelMatch__Output } from '../../../gw/ir/v1/ModelMatch.js';
import type { ModelVisibility as _gw_ir_v1_ModelVisibility, ModelVisibility__Output as _gw_ir_v1_ModelVisibility__Output } from '../../../gw/ir/v1/ModelVisibility.js';
import type { ModelProvider as _gw_ir_v1_ModelProvider, ModelProvider__Output as _gw_ir_v1_ModelProvider__Output } from '../../../gw/ir/v1/ModelProvider.js';
import type { ModelRouting as _gw_ir_v1_ModelRouting, ModelRouting__Output as _gw_ir_v1_ModelRouting__Output } from '../../../gw/ir/v1/ModelRouting.js';
import type { Refusal as _gw_ir_v1_Refusal, Refusal__Output as _gw_ir_v1_Refusal__Output } from '../../../gw/ir/v1/Refusal.js';
import type { Authorization as _gw_ir_v1_Authorization, Authorization__Output as _gw_ir_v1_Authorization__Output } from '../../../gw/ir/v1/Authorization.js';
import type { PromptGuard as _gw_ir_v1_PromptGuard, PromptGuard__Output as _gw_ir_v1_PromptGuard__Output } from '../../../gw/ir/v1/PromptGuard.js';

/**
 * A GwModel: which requests it serves and where they go.
 */
export interface Model {
  'name'?: (string);
  /**
   * Parent Listener or Route names.
   */
  'parents'?: (string)[];
  'match'?: (_gw_ir_v1_ModelMatch | null);
  'visibility'?: (_gw_ir_v1_ModelVisibility);
  'provider'?: (_gw_ir_v1_ModelProvider | null);
  'routing'?: (_gw_ir_v1_ModelRouting | null);
  /**
   * GwModel fields the proxy cannot apply (src/translate/models/models.ts modelRefusals); a model with any is
   * refused by the proxy (`policy_not_enforced` when one concerns security, else `provider_not_supported`).
   */
  'refusals'?: (_gw_ir_v1_Refusal)[];
  /**
   * `policies.authorization`: CEL rules (jwt, request, llmRequest, apiKey) a request must pass to be served
   * by this model, or by a virtual model that may send it here; unset means no rules of the model's own.
   */
  'authorization'?: (_gw_ir_v1_Authorization | null);
  /**
   * `spec.policies.promptGuard`, resolved like an edge's `backend.ai.promptGuard` (the same proxy code runs it);
   * unset means none. Set whenever the GwModel sets promptGuard (unresolvable steps become `unsupported`).
   */
  'promptGuard'?: (_gw_ir_v1_PromptGuard | null);
  'target'?: "provider"|"routing";
}

/**
 * A GwModel: which requests it serves and where they go.
 */
export interface Model__Output {
  'name': (string);
  /**
   * Parent Listener or Route names.
   */
  'parents': (string)[];
  'match': (_gw_ir_v1_ModelMatch__Output | null);
  'visibility': (_gw_ir_v1_ModelVisibility__Output);
  'provider'?: (_gw_ir_v1_ModelProvider__Output | null);
  'routing'?: (_gw_ir_v1_ModelRouting__Output | null);
  /**
   * GwModel fields the proxy cannot apply (src/translate/models/models.ts modelRefusals); a model with any is
   * refused by the proxy (`policy_not_enforced` when one concerns security, else `provider_not_supported`).
   */
  'refusals': (_gw_ir_v1_Refusal__Output)[];
  /**
   * `policies.authorization`: CEL rules (jwt, request, llmRequest, apiKey) a request must pass to be served
   * by this model, or by a virtual model that may send it here; unset means no rules of the model's own.
   */
  'authorization': (_gw_ir_v1_Authorization__Output | null);
  /**
   * `spec.policies.promptGuard`, resolved like an edge's `backend.ai.promptGuard` (the same proxy code runs it);
   * unset means none. Set whenever the GwModel sets promptGuard (unresolvable steps become `unsupported`).
   */
  'promptGuard': (_gw_ir_v1_PromptGuard__Output | null);
  'target'?: "provider"|"routing";
}
