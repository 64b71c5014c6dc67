// Original file: proto/gw/ir/v1/ir.proto

import type { ListenerProtocol as _gw_ir_v1_ListenerProtocol, ListenerProtocol__Output as _gw_ir_v1_ListenerProtocol__Output } from '../../../gw/ir/v1/ListenerProtocol.js';

export interface Listener {
  'name'?: (string);
  /**
   * Name of the parent Bind.
   */
  'bind'?: (string);
  /**
   * Host names served; empty matches every Host header.
   */
  'hostnames'?: (string)[];
  'protocol'?: (_gw_ir_v1_ListenerProtocol);
}

export interface Listener__Output {
  'name': (string);
  /**
   * Name of the parent Bind.
   */
  'bind': (string);
  /**
   * Host names served; empty matches every Host header.
   */
  'hostnames': (string)[];
  'protocol': (_gw_ir_v1_ListenerProtocol__Output);
}
