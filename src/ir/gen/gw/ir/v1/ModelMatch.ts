// Original file: proto/gw/ir/v1/ir_translate.proto


export interface ModelMatch {
  'exact'?: (string);
  'prefix'?: (string);
  'suffix'?: (string);
  'any'?: (boolean);
  'kind'?: "exact"|"prefix"|"suffix"|"any";
}

export interface ModelMatch__Output {
  'exact'?: (string);
  'prefix'?: (string);
  'suffix'?: (string);
  'any'?: (boolean);
  'kind'?: "exact"|"prefix"|"suffix"|"any";
}
