// Original file: proto/gw/ir/v1/ir_translate.proto

import type { RegexGuard as _gw_ir_v1_RegexGuard, RegexGuard__Output as _gw_ir_v1_RegexGuard__Output } from '../../../gw/ir/v1/RegexGuard.js';
import type { WebhookGuard as _gw_ir_v1_WebhookGuard, WebhookGuard__Output as _gw_ir_v1_WebhookGuard__Output } from '../../../gw/ir/v1/WebhookGuard.js';
import type { UnsupportedGuard as _gw_ir_v1_UnsupportedGuard, UnsupportedGuard__Output as _gw_ir_v1_UnsupportedGuard__Output } from '../../../gw/ir/v1/UnsupportedGuard.js';
import type { ModerationGuard as _gw_ir_v1_ModerationGuard, ModerationGuard__Output as _gw_ir_v1_ModerationGuard__Output } from '../../../gw/ir/v1/ModerationGuard.js';
import type { BedrockGuardrailsGuard as _gw_ir_v1_BedrockGuardrailsGuard, BedrockGuardrailsGuard__Output as _gw_ir_v1_BedrockGuardrailsGuard__Output } from '../../../gw/ir/v1/BedrockGuardrailsGuard.js';
import type { ModelArmorGuard as _gw_ir_v1_ModelArmorGuard, ModelArmorGuard__Output as _gw_ir_v1_ModelArmorGuard__Output } from '../../../gw/ir/v1/ModelArmorGuard.js';

export interface PromptGuardStep {
  'regex'?: (_gw_ir_v1_RegexGuard | null);
  'webhook'?: (_gw_ir_v1_WebhookGuard | null);
  /**
   * A step this proxy cannot run, or whose reference or credential did not resolve: the edge
   * fails closed.
   */
  'unsupported'?: (_gw_ir_v1_UnsupportedGuard | null);
  /**
   * Where the step came from, e.g. `GwPolicy ns/name backend.ai.promptGuard.request[0]`; diagnostics only.
   */
  'source'?: (string);
  /**
   * `openAIModeration`: OpenAI's moderation endpoint checks the prompt.
   */
  'moderation'?: (_gw_ir_v1_ModerationGuard | null);
  /**
   * `bedrockGuardrails`: Amazon Bedrock's ApplyGuardrail checks the prompt or the answer.
   */
  'bedrockGuardrails'?: (_gw_ir_v1_BedrockGuardrailsGuard | null);
  /**
   * `googleModelArmor`: Google Model Armor's sanitizeUserPrompt / sanitizeModelResponse checks it.
   */
  'modelArmor'?: (_gw_ir_v1_ModelArmorGuard | null);
  'kind'?: "regex"|"webhook"|"unsupported"|"moderation"|"bedrockGuardrails"|"modelArmor";
}

export interface PromptGuardStep__Output {
  'regex'?: (_gw_ir_v1_RegexGuard__Output | null);
  'webhook'?: (_gw_ir_v1_WebhookGuard__Output | null);
  /**
   * A step this proxy cannot run, or whose reference or credential did not resolve: the edge
   * fails closed.
   */
  'unsupported'?: (_gw_ir_v1_UnsupportedGuard__Output | null);
  /**
   * Where the step came from, e.g. `GwPolicy ns/name backend.ai.promptGuard.request[0]`; diagnostics only.
   */
  'source': (string);
  /**
   * `openAIModeration`: OpenAI's moderation endpoint checks the prompt.
   */
  'moderation'?: (_gw_ir_v1_ModerationGuard__Output | null);
  /**
   * `bedrockGuardrails`: Amazon Bedrock's ApplyGuardrail checks the prompt or the answer.
   */
  'bedrockGuardrails'?: (_gw_ir_v1_BedrockGuardrailsGuard__Output | null);
  /**
   * `googleModelArmor`: Google Model Armor's sanitizeUserPrompt / sanitizeModelResponse checks it.
   */
  'modelArmor'?: (_gw_ir_v1_ModelArmorGuard__Output | null);
  'kind'?: "regex"|"webhook"|"unsupported"|"moderation"|"bedrockGuardrails"|"modelArmor";
}
