// Original file: proto/gw/ir/v1/ir.proto

import type { McpTarget as _gw_ir_v1_McpTarget, McpTarget__Output as _gw_ir_v1_McpTarget__Output } from '../../../gw/ir/v1/McpTarget.js';
import type { PrefixMode as _gw_ir_v1_PrefixMode, PrefixMode__Output as _gw_ir_v1_PrefixMode__Output } from '../../../gw/ir/v1/PrefixMode.js';
import type { FailureMode as _gw_ir_v1_FailureMode, FailureMode__Output as _gw_ir_v1_FailureMode__Output } from '../../../gw/ir/v1/FailureMode.js';
import type { SessionRouting as _gw_ir_v1_SessionRouting, SessionRouting__Output as _gw_ir_v1_SessionRouting__Output } from '../../../gw/ir/v1/SessionRouting.js';

export interface McpBackend {
  'targets'?: (_gw_ir_v1_McpTarget)[];
  'prefixMode'?: (_gw_ir_v1_PrefixMode);
  'failureMode'?: (_gw_ir_v1_FailureMode);
  'sessionRouting'?: (_gw_ir_v1_SessionRouting);
}

export interface McpBackend__Output {
  'targets': (_gw_ir_v1_McpTarget__Output)[];
  'prefixMode': (_gw_ir_v1_PrefixMode__Output);
  'failureMode': (_gw_ir_v1_FailureMode__Output);
  'sessionRouting': (_gw_ir_v1_SessionRouting__Output);
}
