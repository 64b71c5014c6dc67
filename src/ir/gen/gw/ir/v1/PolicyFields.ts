// Original file: proto/gw/ir/v1/ir_translate.proto

import type { FieldProvenance as _gw_ir_v1_FieldProvenance, FieldProvenance__Output as _gw_ir_v1_FieldProvenance__Output } from '../../../gw/ir/v1/FieldProvenance.js';

/**
 * Effective, already merged policy fields. Most policy shapes are not in the proto, so each value is
 * the canonical JSON text (sorted keys) of the field as the winning object set it.
 */
export interface PolicyFields {
  /**
   * Section-qualified field path (`traffic.cors`, `backend.tls`, `frontend.http`) → JSON text.
   */
  'fields'?: ({[key: string]: string});
  'provenance'?: ({[key: string]: _gw_ir_v1_FieldProvenance});
}

/**
 * Effective, already merged policy fields. Most policy shapes are not in the proto, so each value is
 * the canonical JSON text (sorted keys) of the field as the winning object set it.
 */
export interface PolicyFields__Output {
  /**
   * Section-qualified field path (`traffic.cors`, `backend.tls`, `frontend.http`) → JSON text.
   */
  'fields': ({[key: string]: string});
  'provenance': ({[key: string]: _gw_ir_v1_FieldProvenance__Output});
}
