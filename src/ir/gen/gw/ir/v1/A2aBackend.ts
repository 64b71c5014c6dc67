// Original file: proto/gw/ir/v1/ir.proto


export interface A2aBackend {
  'host'?: (string);
  'port'?: (number);
}

export interface A2aBackend__Output {
  'host': (string);
  'port': (number);
}
