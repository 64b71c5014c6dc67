// Original file: proto/gw/ir/v1/ir.proto


export interface Cors {
  'allowOrigins'?: (string)[];
  'allowHeaders'?: (string)[];
  'exposeHeaders'?: (string)[];
  'allowMethods'?: (string)[];
  /**
   * Seconds a preflight may be cached; 0 leaves the header out.
   */
  'maxAge'?: (number);
  'allowCredentials'?: (boolean);
}

export interface Cors__Output {
  'allowOrigins': (string)[];
  'allowHeaders': (string)[];
  'exposeHeaders': (string)[];
  'allowMethods': (string)[];
  /**
   * Seconds a preflight may be cached; 0 leaves the header out.
   */
  'maxAge': (number);
  'allowCredentials': (boolean);
}
