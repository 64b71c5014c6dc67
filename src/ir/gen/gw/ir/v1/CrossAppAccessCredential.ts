// Original file: proto/gw/ir/v1/backend_identity.proto

import type { TokenExchangeCredential as _gw_ir_v1_TokenExchangeCredential, TokenExchangeCredential__Output as _gw_ir_v1_TokenExchangeCredential__Output } from '../../../gw/ir/v1/TokenExchangeCredential.js';

/**
 * Cross-app access (CrossAppAccessAuth): the subject token (an ID token) exchanged at the identity
 * provider for an identity assertion JWT authorization grant (ID-JAG, RFC 8693 with requested type
 * id-jag), which the resource's authorization server exchanges for an access token (RFC 7523). Both
 * steps are cached like any token exchange; the access token goes in `Authorization: Bearer`.
 */
export interface CrossAppAccessCredential {
  'identityProvider'?: (_gw_ir_v1_TokenExchangeCredential | null);
  'resourceServer'?: (_gw_ir_v1_TokenExchangeCredential | null);
}

/**
 * Cross-app access (CrossAppAccessAuth): the subject token (an ID token) exchanged at the identity
 * provider for an identity assertion JWT authorization grant (ID-JAG, RFC 8693 with requested type
 * id-jag), which the resource's authorization server exchanges for an access token (RFC 7523). Both
 * steps are cached like any token exchange; the access token goes in `Authorization: Bearer`.
 */
export interface CrossAppAccessCredential__Output {
  'identityProvider': (_gw_ir_v1_TokenExchangeCredential__Output | null);
  'resourceServer': (_gw_ir_v1_TokenExchangeCredential__Output | null);
}
