// Original file: proto/gw/ir/v1/ir.proto


/**
 * A port the proxy listens on. Several listeners may share one bind.
 */
export interface Bind {
  /**
   * Stable key, e.g. `bind/3000` or `default/gw/80`.
   */
  'name'?: (string);
  'port'?: (number);
  /**
   * Address to bind; empty means all interfaces (`::` with IPv4 fallback).
   */
  'address'?: (string);
}

/**
 * A port the proxy listens on. Several listeners may share one bind.
 */
export interface Bind__Output {
  /**
   * Stable key, e.g. `bind/3000` or `default/gw/80`.
   */
  'name': (string);
  'port': (number);
  /**
   * Address to bind; empty means all interfaces (`::` with IPv4 fallback).
   */
  'address': (string);
}
