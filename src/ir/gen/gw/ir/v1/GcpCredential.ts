// Original file: proto/gw/ir/v1/ir_translate.proto


/**
 * A Google service account of `auth.gcp.secretRef` (`credentials.json`). Secret: never log private_key.
 */
export interface GcpCredential {
  'clientEmail'?: (string);
  'privateKey'?: (string);
  'privateKeyId'?: (string);
  /**
   * Where the signed assertion is exchanged for an access token (the file's `token_uri`).
   */
  'tokenUri'?: (string);
}

/**
 * A Google service account of `auth.gcp.secretRef` (`credentials.json`). Secret: never log private_key.
 */
export interface GcpCredential__Output {
  'clientEmail': (string);
  'privateKey': (string);
  'privateKeyId': (string);
  /**
   * Where the signed assertion is exchanged for an access token (the file's `token_uri`).
   */
  'tokenUri': (string);
}
