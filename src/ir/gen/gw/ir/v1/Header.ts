// Original file: proto/gw/ir/v1/headers.proto


export interface Header {
  'name'?: (string);
  'value'?: (string);
}

export interface Header__Output {
  'name': (string);
  'value': (string);
}
