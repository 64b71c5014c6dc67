// Original file: proto/gw/ir/v1/ir_translate.proto

export const ContentScope = {
  CONTENT_SCOPE_UNSPECIFIED: 'CONTENT_SCOPE_UNSPECIFIED',
  SCOPE_SYSTEM_PROMPT: 'SCOPE_SYSTEM_PROMPT',
  SCOPE_MESSAGES: 'SCOPE_MESSAGES',
  SCOPE_TOOL_OUTPUT: 'SCOPE_TOOL_OUTPUT',
  SCOPE_TOOL_INPUT: 'SCOPE_TOOL_INPUT',
} as const;

export type ContentScope =
  | 'CONTENT_SCOPE_UNSPECIFIED'
  | 0
  | 'SCOPE_SYSTEM_PROMPT'
  | 1
  | 'SCOPE_MESSAGES'
  | 2
  | 'SCOPE_TOOL_OUTPUT'
  | 3
  | 'SCOPE_TOOL_INPUT'
  | 4

export type ContentScope__Output = typeof ContentScope[keyof typeof ContentScope]
