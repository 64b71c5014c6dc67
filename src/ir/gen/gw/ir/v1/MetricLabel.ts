// Original file: proto/gw/ir/v1/ir.proto


export interface MetricLabel {
  'name'?: (string);
  'expression'?: (string);
}

export interface MetricLabel__Output {
  'name': (string);
  'expression': (string);
}
