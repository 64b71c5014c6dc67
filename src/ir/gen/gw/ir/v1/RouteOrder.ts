// Original file: proto/gw/ir/v1/ir.proto


/**
 * Where a route stands when two matches are equally specific: the older source object first, then
 * the alphabetically first `namespace/name`, then the earlier rule. Filled by the translator so the
 * proxy needs no Kubernetes objects.
 */
export interface RouteOrder {
  /**
   * Creation time of the source object, fixed-width RFC 3339 in UTC (`2026-01-01T00:00:00.000Z`) so
   * text order is time order; empty (unknown) sorts first.
   */
  'created'?: (string);
  /**
   * `namespace/name` of the source object.
   */
  'key'?: (string);
  /**
   * Index of the rule inside the source object.
   */
  'rule'?: (number);
}

/**
 * Where a route stands when two matches are equally specific: the older source object first, then
 * the alphabetically first `namespace/name`, then the earlier rule. Filled by the translator so the
 * proxy needs no Kubernetes objects.
 */
export interface RouteOrder__Output {
  /**
   * Creation time of the source object, fixed-width RFC 3339 in UTC (`2026-01-01T00:00:00.000Z`) so
   * text order is time order; empty (unknown) sorts first.
   */
  'created': (string);
  /**
   * `namespace/name` of the source object.
   */
  'key': (string);
  /**
   * Index of the rule inside the source object.
   */
  'rule': (number);
}
