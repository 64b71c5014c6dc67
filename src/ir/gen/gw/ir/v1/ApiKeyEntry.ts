// Original file: proto/gw/ir/v1/ir.proto


/**
 * One key of an API-key Secret: a plain string, or an object `{key | keyHash, metadata}`.
 */
export interface ApiKeyEntry {
  /**
   * Lower-case hex SHA-256 of the key (`keyHash: sha256:<hex>` is carried as given).
   */
  'keySha256'?: (string);
  /**
   * The entry's `metadata` object as JSON text: the value of CEL's `apiKey` for callers with this key.
   */
  'metadataJson'?: (string);
}

/**
 * One key of an API-key Secret: a plain string, or an object `{key | keyHash, metadata}`.
 */
export interface ApiKeyEntry__Output {
  /**
   * Lower-case hex SHA-256 of the key (`keyHash: sha256:<hex>` is carried as given).
   */
  'keySha256': (string);
  /**
   * The entry's `metadata` object as JSON text: the value of CEL's `apiKey` for callers with this key.
   */
  'metadataJson': (string);
}
