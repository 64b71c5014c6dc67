// Original file: proto/gw/ir/v1/traffic.proto


export interface TransformationHeader {
  'name'?: (string);
  'expression'?: (string);
}

export interface TransformationHeader__Output {
  'name': (string);
  'expression': (string);
}
