// Original file: proto/gw/ir/v1/llm.proto


/**
 * One `{field, expression}` of `transformations` / `finalTransformations`: the expression's value (CEL over
 * `llmRequest`, `request`, `jwt`, `apiKey`) is set at the dotted `field`; `null` removes the field.
 */
export interface AiFieldTransformation {
  'field'?: (string);
  'expression'?: (string);
}

/**
 * One `{field, expression}` of `transformations` / `finalTransformations`: the expression's value (CEL over
 * `llmRequest`, `request`, `jwt`, `apiKey`) is set at the dotted `field`; `null` removes the field.
 */
export interface AiFieldTransformation__Output {
  'field': (string);
  'expression': (string);
}
