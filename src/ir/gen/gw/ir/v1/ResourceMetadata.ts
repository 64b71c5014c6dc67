// Original file: proto/gw/ir/v1/ir.proto


export interface ResourceMetadata {
  'resource'?: (string);
  'scopesSupported'?: (string)[];
  'bearerMethodsSupported'?: (string)[];
  /**
   * Further protected-resource metadata members, as a JSON object text (kept verbatim).
   */
  'extraJson'?: (string);
}

export interface ResourceMetadata__Output {
  'resource': (string);
  'scopesSupported': (string)[];
  'bearerMethodsSupported': (string)[];
  /**
   * Further protected-resource metadata members, as a JSON object text (kept verbatim).
   */
  'extraJson': (string);
}
