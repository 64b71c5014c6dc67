// Original file: proto/gw/ir/v1/ir.proto


export interface StdioTarget {
  'cmd'?: (string);
  'args'?: (string)[];
  /**
   * Added to a minimal inherited environment (PATH, HOME, ...); values are already expanded.
   */
  'env'?: ({[key: string]: string});
}

export interface StdioTarget__Output {
  'cmd': (string);
  'args': (string)[];
  /**
   * Added to a minimal inherited environment (PATH, HOME, ...); values are already expanded.
   */
  'env': ({[key: string]: string});
}
