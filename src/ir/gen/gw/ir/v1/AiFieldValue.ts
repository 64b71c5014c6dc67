// Original file: proto/gw/ir/v1/ir.proto


export interface AiFieldValue {
  /**
   * Dotted path into the request body, e.g. `temperature` or `stream_options.include_usage`.
   */
  'field'?: (string);
  /**
   * The value as JSON text.
   */
  'valueJson'?: (string);
}

export interface AiFieldValue__Output {
  /**
   * Dotted path into the request body, e.g. `temperature` or `stream_options.include_usage`.
   */
  'field': (string);
  /**
   * The value as JSON text.
   */
  'valueJson': (string);
}
