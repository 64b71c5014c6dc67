// Original file: proto/gw/ir/v1/ir_translate.proto

import type { AwsCredential as _gw_ir_v1_AwsCredential, AwsCredential__Output as _gw_ir_v1_AwsCredential__Output } from '../../../gw/ir/v1/AwsCredential.js';
import type { AzureCredential as _gw_ir_v1_AzureCredential, AzureCredential__Output as _gw_ir_v1_AzureCredential__Output } from '../../../gw/ir/v1/AzureCredential.js';
import type { GcpCredential as _gw_ir_v1_GcpCredential, GcpCredential__Output as _gw_ir_v1_GcpCredential__Output } from '../../../gw/ir/v1/GcpCredential.js';
import type { TokenExchangeCredential as _gw_ir_v1_TokenExchangeCredential, TokenExchangeCredential__Output as _gw_ir_v1_TokenExchangeCredential__Output } from '../../../gw/ir/v1/TokenExchangeCredential.js';
import type { JwtSignCredential as _gw_ir_v1_JwtSignCredential, JwtSignCredential__Output as _gw_ir_v1_JwtSignCredential__Output } from '../../../gw/ir/v1/JwtSignCredential.js';
import type { CrossAppAccessCredential as _gw_ir_v1_CrossAppAccessCredential, CrossAppAccessCredential__Output as _gw_ir_v1_CrossAppAccessCredential__Output } from '../../../gw/ir/v1/CrossAppAccessCredential.js';

/**
 * An upstream LLM credential: of an AI backend edge (ir.proto AiProviderEdge) or of a GwModel provider.
 * Defined here, not in ir.proto, because ir.proto imports this file and imports cannot go both ways.
 */
export interface AiCredential {
  /**
   * The upstream API key (`auth.key`, or the Secret `auth.secretRef` names). Secret: never log it.
   */
  'key'?: (string);
  /**
   * `auth.passthrough`: the client's own bearer token is sent upstream.
   */
  'passthrough'?: (boolean);
  /**
   * Where it came from, e.g. `GwPolicy ns/name`, `GwModel ns/name` or `Secret ns/name key k`; diagnostics only.
   */
  'source'?: (string);
  /**
   * `auth.aws`: requests are signed with AWS Signature Version 4.
   */
  'aws'?: (_gw_ir_v1_AwsCredential | null);
  /**
   * `auth.azure`: an Entra ID token from the client-credentials grant.
   */
  'azure'?: (_gw_ir_v1_AzureCredential | null);
  /**
   * `auth.gcp`: a Google OAuth2 access token from a service account's signed JWT assertion.
   */
  'gcp'?: (_gw_ir_v1_GcpCredential | null);
  /**
   * `auth.oauthTokenExchange`: a token from an RFC 8693 / RFC 7523 exchange per subject (backend_identity.proto).
   */
  'tokenExchange'?: (_gw_ir_v1_TokenExchangeCredential | null);
  /**
   * `auth.jwtSign`: a JWT the proxy signs with a key of its own.
   */
  'jwtSign'?: (_gw_ir_v1_JwtSignCredential | null);
  /**
   * `auth.crossAppAccess`: ID token → ID-JAG at the identity provider → access token at the resource's server.
   */
  'crossAppAccess'?: (_gw_ir_v1_CrossAppAccessCredential | null);
  'kind'?: "key"|"passthrough"|"aws"|"azure"|"gcp"|"tokenExchange"|"jwtSign"|"crossAppAccess";
}

/**
 * An upstream LLM credential: of an AI backend edge (ir.proto AiProviderEdge) or of a GwModel provider.
 * Defined here, not in ir.proto, because ir.proto imports this file and imports cannot go both ways.
 */
export interface AiCredential__Output {
  /**
   * The upstream API key (`auth.key`, or the Secret `auth.secretRef` names). Secret: never log it.
   */
  'key'?: (string);
  /**
   * `auth.passthrough`: the client's own bearer token is sent upstream.
   */
  'passthrough'?: (boolean);
  /**
   * Where it came from, e.g. `GwPolicy ns/name`, `GwModel ns/name` or `Secret ns/name key k`; diagnostics only.
   */
  'source': (string);
  /**
   * `auth.aws`: requests are signed with AWS Signature Version 4.
   */
  'aws'?: (_gw_ir_v1_AwsCredential__Output | null);
  /**
   * `auth.azure`: an Entra ID token from the client-credentials grant.
   */
  'azure'?: (_gw_ir_v1_AzureCredential__Output | null);
  /**
   * `auth.gcp`: a Google OAuth2 access token from a service account's signed JWT assertion.
   */
  'gcp'?: (_gw_ir_v1_GcpCredential__Output | null);
  /**
   * `auth.oauthTokenExchange`: a token from an RFC 8693 / RFC 7523 exchange per subject (backend_identity.proto).
   */
  'tokenExchange'?: (_gw_ir_v1_TokenExchangeCredential__Output | null);
  /**
   * `auth.jwtSign`: a JWT the proxy signs with a key of its own.
   */
  'jwtSign'?: (_gw_ir_v1_JwtSignCredential__Output | null);
  /**
   * `auth.crossAppAccess`: ID token → ID-JAG at the identity provider → access token at the resource's server.
   */
  'crossAppAccess'?: (_gw_ir_v1_CrossAppAccessCredential__Output | null);
  'kind'?: "key"|"passthrough"|"aws"|"azure"|"gcp"|"tokenExchange"|"jwtSign"|"crossAppAccess";
}
