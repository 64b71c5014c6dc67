// Original file: proto/gw/ir/v1/ir.proto


export interface ExtAuthorizationCache {
  /**
   * CEL expressions over request.* and jwt.*; their values together are the key.
   */
  'key'?: (string)[];
  'ttlMs'?: (number);
  'maxEntries'?: (number);
}

export interface ExtAuthorizationCache__Output {
  /**
   * CEL expressions over request.* and jwt.*; their values together are the key.
   */
  'key': (string)[];
  'ttlMs': (number);
  'maxEntries': (number);
}
