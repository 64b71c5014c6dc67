// Original file: proto/gw/ir/v1/ir.proto


/**
 * A named header or query parameter and the value it must have. Regexes match the whole value.
 */
export interface ValueMatch {
  'name'?: (string);
  'exact'?: (string);
  'regex'?: (string);
  'kind'?: "exact"|"regex";
}

/**
 * A named header or query parameter and the value it must have. Regexes match the whole value.
 */
export interface ValueMatch__Output {
  'name': (string);
  'exact'?: (string);
  'regex'?: (string);
  'kind'?: "exact"|"regex";
}
