// Original file: proto/gw/ir/v1/ir.proto


export interface AiPromptMessage {
  'role'?: (string);
  'content'?: (string);
}

export interface AiPromptMessage__Output {
  'role': (string);
  'content': (string);
}
