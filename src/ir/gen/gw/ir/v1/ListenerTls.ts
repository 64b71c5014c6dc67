// Original file: proto/gw/ir/v1/ir.proto

import type { TlsCertificate as _gw_ir_v1_TlsCertificate, TlsCertificate__Output as _gw_ir_v1_TlsCertificate__Output } from '../../../gw/ir/v1/TlsCertificate.js';

/**
 * TLS termination settings of an HTTPS listener, resolved from its certificate Secrets.
 * The private keys are secret material: they are carried only on the authenticated xDS stream and are
 * never logged, nor rendered in status, errors or golden files (those show a fingerprint).
 */
export interface ListenerTls {
  /**
   * One pair per certificateRef, in order (e.g. RSA and ECDSA); the TLS stack picks one per client.
   */
  'certificates'?: (_gw_ir_v1_TlsCertificate)[];
}

/**
 * TLS termination settings of an HTTPS listener, resolved from its certificate Secrets.
 * The private keys are secret material: they are carried only on the authenticated xDS stream and are
 * never logged, nor rendered in status, errors or golden files (those show a fingerprint).
 */
export interface ListenerTls__Output {
  /**
   * One pair per certificateRef, in order (e.g. RSA and ECDSA); the TLS stack picks one per client.
   */
  'certificates': (_gw_ir_v1_TlsCertificate__Output)[];
}
