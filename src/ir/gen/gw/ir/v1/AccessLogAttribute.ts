// Original file: proto/gw/ir/v1/ir.proto


export interface AccessLogAttribute {
  'name'?: (string);
  'expression'?: (string);
}

export interface AccessLogAttribute__Output {
  'name': (string);
  'expression': (string);
}
