// Original file: proto/gw/ir/v1/ir.proto


/**
 * Exactly one of header, query_parameter, cookie and expression is set.
 */
export interface TokenLocation {
  'header'?: (string);
  /**
   * Text before the credential in the header, e.g. `Bearer `; empty means the whole value.
   */
  'prefix'?: (string);
  'queryParameter'?: (string);
  'cookie'?: (string);
  /**
   * `location.expression`: CEL over `request` whose string value is the credential (empty or not a string: none).
   */
  'expression'?: (string);
}

/**
 * Exactly one of header, query_parameter, cookie and expression is set.
 */
export interface TokenLocation__Output {
  'header': (string);
  /**
   * Text before the credential in the header, e.g. `Bearer `; empty means the whole value.
   */
  'prefix': (string);
  'queryParameter': (string);
  'cookie': (string);
  /**
   * `location.expression`: CEL over `request` whose string value is the credential (empty or not a string: none).
   */
  'expression': (string);
}
