// Original file: proto/gw/ir/v1/ir.proto


export interface BackendRef {
  /**
   * Name of the Backend resource.
   */
  'backend'?: (string);
  /**
   * Relative weight; 0 means the backend receives no traffic. A single ref with weight 0 is treated as 1.
   */
  'weight'?: (number);
}

export interface BackendRef__Output {
  /**
   * Name of the Backend resource.
   */
  'backend': (string);
  /**
   * Relative weight; 0 means the backend receives no traffic. A single ref with weight 0 is treated as 1.
   */
  'weight': (number);
}
