// Original file: proto/gw/ir/v1/ir.proto


export interface FilterPathModifier {
  'replaceFullPath'?: (string);
  /**
   * Replaces the matched path prefix; an empty string is a valid replacement.
   */
  'replacePrefixMatch'?: (string);
  'kind'?: "replaceFullPath"|"replacePrefixMatch";
}

export interface FilterPathModifier__Output {
  'replaceFullPath'?: (string);
  /**
   * Replaces the matched path prefix; an empty string is a valid replacement.
   */
  'replacePrefixMatch'?: (string);
  'kind'?: "replaceFullPath"|"replacePrefixMatch";
}
