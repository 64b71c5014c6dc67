// Original file: proto/gw/ir/v1/ir_translate.proto

import type { CredentialLocation as _gw_ir_v1_CredentialLocation, CredentialLocation__Output as _gw_ir_v1_CredentialLocation__Output } from '../../../gw/ir/v1/CredentialLocation.js';

/**
 * A key sent at a location of its own (GwModel `policies.auth.credentials[]`). Secret: never log `key`.
 */
export interface PlacedKey {
  'key'?: (string);
  'location'?: (_gw_ir_v1_CredentialLocation | null);
  /**
   * Where it came from (`GwModel ns/name`, `Secret ns/name key k`); diagnostics only.
   */
  'source'?: (string);
}

/**
 * A key sent at a location of its own (GwModel `policies.auth.credentials[]`). Secret: never log `key`.
 */
export interface PlacedKey__Output {
  'key': (string);
  'location': (_gw_ir_v1_CredentialLocation__Output | null);
  /**
   * Where it came from (`GwModel ns/name`, `Secret ns/name key k`); diagnostics only.
   */
  'source': (string);
}
