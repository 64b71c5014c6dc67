// Original file: proto/gw/ir/v1/llm.proto


/**
 * A provider's vendor settings, typed (replaces AiProvider.settings_json / ModelProvider.settings_json).
 */
export interface AiProviderSettings {
}

/**
 * A provider's vendor settings, typed (replaces AiProvider.settings_json / ModelProvider.settings_json).
 */
export interface AiProviderSettings__Output {
}
