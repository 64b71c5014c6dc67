// Original file: proto/gw/ir/v1/llm.proto

import type { BedrockGuardrail as _gw_ir_v1_BedrockGuardrail, BedrockGuardrail__Output as _gw_ir_v1_BedrockGuardrail__Output } from '../../../gw/ir/v1/BedrockGuardrail.js';
import type { CustomFormat as _gw_ir_v1_CustomFormat, CustomFormat__Output as _gw_ir_v1_CustomFormat__Output } from '../../../gw/ir/v1/CustomFormat.js';
import type { OpenAiModeration as _gw_ir_v1_OpenAiModeration, OpenAiModeration__Output as _gw_ir_v1_OpenAiModeration__Output } from '../../../gw/ir/v1/OpenAiModeration.js';

/**
 * A provider's vendor settings, typed (replaces AiProvider.settings_json / ModelProvider.settings_json).
 * GwBackend: `spec.ai.provider.<vendor>.*` / `spec.ai.groups[].providers[].<vendor>.*`;
 * GwModel: `spec.azure`, `spec.vertexai`, `spec.bedrock`, `spec.custom`.
 */
export interface AiProviderSettings {
  /**
   * `<vendor>.model`: upstream model override (GwBackend providers).
   */
  'model'?: (string);
  /**
   * `azureopenai.endpoint`: host name (a scheme or path written with it is dropped by the translator).
   */
  'endpoint'?: (string);
  /**
   * `azureopenai.apiVersion`, `azure.apiVersion`: empty means `v1`.
   */
  'apiVersion'?: (string);
  /**
   * `azureopenai.deploymentName`.
   */
  'deploymentName'?: (string);
  /**
   * `bedrock.region`, `vertexai.region`: empty means the vendor default.
   */
  'region'?: (string);
  /**
   * `bedrock.guardrail.identifier` / `.version`.
   */
  'guardrail'?: (_gw_ir_v1_BedrockGuardrail | null);
  /**
   * `azure.resourceName`.
   */
  'resourceName'?: (string);
  /**
   * `azure.resourceType`: `OpenAI` (default) or `Foundry`.
   */
  'resourceType'?: (string);
  /**
   * `azure.projectName`.
   */
  'projectName'?: (string);
  /**
   * `vertexai.projectId`.
   */
  'projectId'?: (string);
  /**
   * `custom.formats[]`: the API formats a custom provider serves, with their paths.
   */
  'formats'?: (_gw_ir_v1_CustomFormat)[];
  /**
   * `custom.providerOverride`: the provider name used in metric labels instead of the provider's kind.
   */
  'providerOverride'?: (string);
  /**
   * `openai.moderation`: the provider's moderation endpoint is asked about the prompt (input) and the
   * answer (output) before they pass (docs/llm-providers.md "Inline moderation").
   */
  'moderation'?: (_gw_ir_v1_OpenAiModeration | null);
}

/**
 * A provider's vendor settings, typed (replaces AiProvider.settings_json / ModelProvider.settings_json).
 * GwBackend: `spec.ai.provider.<vendor>.*` / `spec.ai.groups[].providers[].<vendor>.*`;
 * GwModel: `spec.azure`, `spec.vertexai`, `spec.bedrock`, `spec.custom`.
 */
export interface AiProviderSettings__Output {
  /**
   * `<vendor>.model`: upstream model override (GwBackend providers).
   */
  'model': (string);
  /**
   * `azureopenai.endpoint`: host name (a scheme or path written with it is dropped by the translator).
   */
  'endpoint': (string);
  /**
   * `azureopenai.apiVersion`, `azure.apiVersion`: empty means `v1`.
   */
  'apiVersion': (string);
  /**
   * `azureopenai.deploymentName`.
   */
  'deploymentName': (string);
  /**
   * `bedrock.region`, `vertexai.region`: empty means the vendor default.
   */
  'region': (string);
  /**
   * `bedrock.guardrail.identifier` / `.version`.
   */
  'guardrail': (_gw_ir_v1_BedrockGuardrail__Output | null);
  /**
   * `azure.resourceName`.
   */
  'resourceName': (string);
  /**
   * `azure.resourceType`: `OpenAI` (default) or `Foundry`.
   */
  'resourceType': (string);
  /**
   * `azure.projectName`.
   */
  'projectName': (string);
  /**
   * `vertexai.projectId`.
   */
  'projectId': (string);
  /**
   * `custom.formats[]`: the API formats a custom provider serves, with their paths.
   */
  'formats': (_gw_ir_v1_CustomFormat__Output)[];
  /**
   * `custom.providerOverride`: the provider name used in metric labels instead of the provider's kind.
   */
  'providerOverride': (string);
  /**
   * `openai.moderation`: the provider's moderation endpoint is asked about the prompt (input) and the
   * answer (output) before they pass (docs/llm-providers.md "Inline moderation").
   */
  'moderation': (_gw_ir_v1_OpenAiModeration__Output | null);
}
