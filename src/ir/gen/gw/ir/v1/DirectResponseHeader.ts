// Original file: proto/gw/ir/v1/traffic.proto


export interface DirectResponseHeader {
  'name'?: (string);
  /**
   * CEL expression yielding the value.
   */
  'valueExpression'?: (string);
}

export interface DirectResponseHeader__Output {
  'name': (string);
  /**
   * CEL expression yielding the value.
   */
  'valueExpression': (string);
}
