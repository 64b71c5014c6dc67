// Original file: proto/gw/ir/v1/ir.proto


export interface GlobalRateLimitEntry {
  /**
   * The descriptor entry's key.
   */
  'key'?: (string);
  /**
   * CEL over request, jwt, apiKey, extauthz: its text value is the entry's value.
   */
  'expression'?: (string);
}

export interface GlobalRateLimitEntry__Output {
  /**
   * The descriptor entry's key.
   */
  'key': (string);
  /**
   * CEL over request, jwt, apiKey, extauthz: its text value is the entry's value.
   */
  'expression': (string);
}
