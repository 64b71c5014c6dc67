// Original file: proto/gw/ir/v1/ir.proto

import type { StdioTarget as _gw_ir_v1_StdioTarget, StdioTarget__Output as _gw_ir_v1_StdioTarget__Output } from '../../../gw/ir/v1/StdioTarget.js';
import type { RemoteTarget as _gw_ir_v1_RemoteTarget, RemoteTarget__Output as _gw_ir_v1_RemoteTarget__Output } from '../../../gw/ir/v1/RemoteTarget.js';

export interface McpTarget {
  /**
   * Unique within the backend; used as the name prefix when multiplexing.
   */
  'name'?: (string);
  'stdio'?: (_gw_ir_v1_StdioTarget | null);
  'remote'?: (_gw_ir_v1_RemoteTarget | null);
  'transport'?: "stdio"|"remote";
}

export interface McpTarget__Output {
  /**
   * Unique within the backend; used as the name prefix when multiplexing.
   */
  'name': (string);
  'stdio'?: (_gw_ir_v1_StdioTarget__Output | null);
  'remote'?: (_gw_ir_v1_RemoteTarget__Output | null);
  'transport'?: "stdio"|"remote";
}
