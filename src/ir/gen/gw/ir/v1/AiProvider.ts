// Original file: proto/gw/ir/v1/ir_translate.proto


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
}
