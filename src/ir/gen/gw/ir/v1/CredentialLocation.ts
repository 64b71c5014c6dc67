// Original file: proto/gw/ir/v1/backend_identity.proto


/**
 * Where a backend credential is placed on the upstream request; unset means `Authorization: Bearer <token>`.
 * Exactly one of header, query_parameter and cookie is set.
 */
export interface CredentialLocation {
  'header'?: (string);
  /**
   * Text before the token in the header; empty with a header means the bare token.
   */
  'prefix'?: (string);
  'queryParameter'?: (string);
  'cookie'?: (string);
}

/**
 * Where a backend credential is placed on the upstream request; unset means `Authorization: Bearer <token>`.
 * Exactly one of header, query_parameter and cookie is set.
 */
export interface CredentialLocation__Output {
  'header': (string);
  /**
   * Text before the token in the header; empty with a header means the bare token.
   */
  'prefix': (string);
  'queryParameter': (string);
  'cookie': (string);
}
