// Original file: proto/gw/ir/v1/ir.proto


/**
 * Regexes match the whole path (they are anchored at both ends).
 */
export interface PathMatch {
  'exact'?: (string);
  'prefix'?: (string);
  'regex'?: (string);
  'kind'?: "exact"|"prefix"|"regex";
}

/**
 * Regexes match the whole path (they are anchored at both ends).
 */
export interface PathMatch__Output {
  'exact'?: (string);
  'prefix'?: (string);
  'regex'?: (string);
  'kind'?: "exact"|"prefix"|"regex";
}
