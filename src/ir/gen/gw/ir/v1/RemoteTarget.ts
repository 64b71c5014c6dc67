// Original file: proto/gw/ir/v1/ir.proto

import type { RemoteProtocol as _gw_ir_v1_RemoteProtocol, RemoteProtocol__Output as _gw_ir_v1_RemoteProtocol__Output } from '../../../gw/ir/v1/RemoteProtocol.js';

export interface RemoteTarget {
  /**
   * Full URL of the MCP endpoint, e.g. `http://svc.ns:8080/mcp`.
   */
  'url'?: (string);
  'protocol'?: (_gw_ir_v1_RemoteProtocol);
}

export interface RemoteTarget__Output {
  /**
   * Full URL of the MCP endpoint, e.g. `http://svc.ns:8080/mcp`.
   */
  'url': (string);
  'protocol': (_gw_ir_v1_RemoteProtocol__Output);
}
