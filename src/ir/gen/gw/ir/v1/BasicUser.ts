// Original file: proto/gw/ir/v1/ir.proto


export interface BasicUser {
  'name'?: (string);
  /**
   * htpasswd hash: `{SHA}…` or `$apr1$…` (never a clear password).
   */
  'hash'?: (string);
}

export interface BasicUser__Output {
  'name': (string);
  /**
   * htpasswd hash: `{SHA}…` or `$apr1$…` (never a clear password).
   */
  'hash': (string);
}
