// Original file: proto/gw/ir/v1/ir_translate.proto


export interface ModelTarget {
  /**
   * Name of the target Model resource.
   */
  'model'?: (string);
  /**
   * Upstream model name override (required for wildcard matches).
   */
  'modelName'?: (string);
  'priority'?: (number);
  /**
   * CEL condition (conditional routing); empty on the final fallback.
   */
  'when'?: (string);
  'weight'?: (number);
}

export interface ModelTarget__Output {
  /**
   * Name of the target Model resource.
   */
  'model': (string);
  /**
   * Upstream model name override (required for wildcard matches).
   */
  'modelName': (string);
  'priority': (number);
  /**
   * CEL condition (conditional routing); empty on the final fallback.
   */
  'when': (string);
  'weight': (number);
}
