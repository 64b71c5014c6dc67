// Original file: proto/gw/ir/v1/ir.proto


export interface StaticBackend {
  'host'?: (string);
  'port'?: (number);
}

export interface StaticBackend__Output {
  'host': (string);
  'port': (number);
}
