// Original file: proto/gw/ir/v1/ir_translate.proto


/**
 * Entra ID application credentials of `auth.azure.secretRef`. Secret: never log client_secret.
 */
export interface AzureCredential {
  'tenantId'?: (string);
  'clientId'?: (string);
  'clientSecret'?: (string);
}

/**
 * Entra ID application credentials of `auth.azure.secretRef`. Secret: never log client_secret.
 */
export interface AzureCredential__Output {
  'tenantId': (string);
  'clientId': (string);
  'clientSecret': (string);
}
