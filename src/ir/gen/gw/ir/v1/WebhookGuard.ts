// Original file: proto/gw/ir/v1/ir_translate.proto


export interface WebhookGuard {
  'host'?: (string);
  'port'?: (number);
  /**
   * Header name (or `:path`, `:method`, `:authority`) → CEL expression over the client's request.
   */
  'headers'?: ({[key: string]: string});
  /**
   * `Service ns/name:port`; named in errors and logs instead of the headers (they may carry secrets).
   */
  'target'?: (string);
}

export interface WebhookGuard__Output {
  'host': (string);
  'port': (number);
  /**
   * Header name (or `:path`, `:method`, `:authority`) → CEL expression over the client's request.
   */
  'headers': ({[key: string]: string});
  /**
   * `Service ns/name:port`; named in errors and logs instead of the headers (they may carry secrets).
   */
  'target': (string);
}
