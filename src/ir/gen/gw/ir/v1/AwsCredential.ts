// Original file: proto/gw/ir/v1/ir_translate.proto


/**
 * AWS credentials of `auth.aws`. Secret: never log the keys. Empty keys mean the proxy's own environment
 * (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN).
 */
export interface AwsCredential {
  'accessKeyId'?: (string);
  'secretAccessKey'?: (string);
  'sessionToken'?: (string);
  /**
   * Signing region (`auth.aws.region`); empty means the provider's region.
   */
  'region'?: (string);
  /**
   * Signing service (`auth.aws.serviceName`); empty means the provider's (`bedrock`).
   */
  'serviceName'?: (string);
}

/**
 * AWS credentials of `auth.aws`. Secret: never log the keys. Empty keys mean the proxy's own environment
 * (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN).
 */
export interface AwsCredential__Output {
  'accessKeyId': (string);
  'secretAccessKey': (string);
  'sessionToken': (string);
  /**
   * Signing region (`auth.aws.region`); empty means the provider's region.
   */
  'region': (string);
  /**
   * Signing service (`auth.aws.serviceName`); empty means the provider's (`bedrock`).
   */
  'serviceName': (string);
}
