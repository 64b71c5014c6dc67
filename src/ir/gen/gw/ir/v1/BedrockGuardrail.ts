// Original file: proto/gw/ir/v1/llm.proto


export interface BedrockGuardrail {
  'identifier'?: (string);
  'version'?: (string);
}

export interface BedrockGuardrail__Output {
  'identifier': (string);
  'version': (string);
}
