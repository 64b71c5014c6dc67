// Original file: proto/gw/ir/v1/traffic.proto


export interface Csrf {
  /**
   * spec.traffic.csrf.additionalOrigins: scheme://host[:port] origins allowed besides the request's own.
   */
  'additionalOrigins'?: (string)[];
}

export interface Csrf__Output {
  /**
   * spec.traffic.csrf.additionalOrigins: scheme://host[:port] origins allowed besides the request's own.
   */
  'additionalOrigins': (string)[];
}
