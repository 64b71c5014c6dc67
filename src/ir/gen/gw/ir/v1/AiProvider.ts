// Original file: proto/gw/ir/v1/ir_translate.proto

import type { AiProviderSettings as _gw_ir_v1_AiProviderSettings, AiProviderSettings__Output as _gw_ir_v1_AiProviderSettings__Output } from '../../../gw/ir/v1/AiProviderSettings.js';

export interface AiProvider {
  'name'?: (string);
  /**
   * openai, azureopenai, azure, anthropic, gemini, vertexai, bedrock or custom.
   */
  'kind'?: (string);
  /**
   * The vendor settings object as JSON text (model override, endpoint, region, formats, ...).
   */
  'settingsJson'?: (string);
  'host'?: (string);
  'port'?: (number);
  'path'?: (string);
  'pathPrefix'?: (string);
  /**
   * The provider's own backend policies as JSON text (also merged into BackendRef.target_policies).
   */
  'policiesJson'?: (string);
  /**
   * The vendor settings, typed; settings_json is kept for `gw explain` only and read by no proxy code.
   */
  'settings'?: (_gw_ir_v1_AiProviderSettings | null);
}

export interface AiProvider__Output {
  'name': (string);
  /**
   * openai, azureopenai, azure, anthropic, gemini, vertexai, bedrock or custom.
   */
  'kind': (string);
  /**
   * The vendor settings object as JSON text (model override, endpoint, region, formats, ...).
   */
  'settingsJson': (string);
  'host': (string);
  'port': (number);
  'path': (string);
  'pathPrefix': (string);
  /**
   * The provider's own backend policies as JSON text (also merged into BackendRef.target_policies).
   */
  'policiesJson': (string);
  /**
   * The vendor settings, typed; settings_json is kept for `gw explain` only and read by no proxy code.
   */
  'settings': (_gw_ir_v1_AiProviderSettings__Output | null);
}
