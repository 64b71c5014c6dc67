// Original file: proto/gw/ir/v1/ir.proto


export interface FilterHeader {
  'name'?: (string);
  'value'?: (string);
}

export interface FilterHeader__Output {
  'name': (string);
  'value': (string);
}
