// Original file: proto/gw/ir/v1/ir.proto


/**
 * A backend ref the translator left out: its status reason (`InvalidBackendAuth`, `BackendNotFound`, ...)
 * and the sentence the route's status shows.
 */
export interface UnservedBackend {
  'reason'?: (string);
  'message'?: (string);
}

/**
 * A backend ref the translator left out: its status reason (`InvalidBackendAuth`, `BackendNotFound`, ...)
 * and the sentence the route's status shows.
 */
export interface UnservedBackend__Output {
  'reason': (string);
  'message': (string);
}
