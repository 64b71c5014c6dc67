// Original file: proto/gw/ir/v1/ir.proto


export interface PathMatch {
  'exact'?: (string);
  'prefix'?: (string);
  'regex'?: (string);
  'kind'?: "exact"|"prefix"|"regex";
}

export interface PathMatch__Output {
  'exact'?: (string);
  'prefix'?: (string);
  'regex'?: (string);
  'kind'?: "exact"|"prefix"|"regex";
}
