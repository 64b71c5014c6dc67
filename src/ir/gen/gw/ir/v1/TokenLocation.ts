// Original file: proto/gw/ir/v1/ir.proto


/**
 * Exactly one of header, query_parameter and cookie is set.
 */
export interface TokenLocation {
  'header'?: (string);
  /**
   * Text before the credential in the header, e.g. `Bearer `; empty means the whole value.
   */
  'prefix'?: (string);
  'queryParameter'?: (string);
  'cookie'?: (string);
}

/**
 * Exactly one of header, query_parameter and cookie is set.
 */
export interface TokenLocation__Output {
  'header': (string);
  /**
   * Text before the credential in the header, e.g. `Bearer `; empty means the whole value.
   */
  'prefix': (string);
  'queryParameter': (string);
  'cookie': (string);
}
