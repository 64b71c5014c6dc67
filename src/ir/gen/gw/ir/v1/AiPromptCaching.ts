// Original file: proto/gw/ir/v1/llm.proto


/**
 * `backend.ai.promptCaching`: where the proxy places cache breakpoints.
 */
export interface AiPromptCaching {
  'system'?: (boolean);
  'messages'?: (boolean);
  'tools'?: (boolean);
}

/**
 * `backend.ai.promptCaching`: where the proxy places cache breakpoints.
 */
export interface AiPromptCaching__Output {
  'system': (boolean);
  'messages': (boolean);
  'tools': (boolean);
}
