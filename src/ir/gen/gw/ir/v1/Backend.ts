// Original file: proto/gw/ir/v1/ir.proto

import type { McpBackend as _gw_ir_v1_McpBackend, McpBackend__Output as _gw_ir_v1_McpBackend__Output } from '../../../gw/ir/v1/McpBackend.js';
import type { AiBackend as _gw_ir_v1_AiBackend, AiBackend__Output as _gw_ir_v1_AiBackend__Output } from '../../../gw/ir/v1/AiBackend.js';
import type { StaticBackend as _gw_ir_v1_StaticBackend, StaticBackend__Output as _gw_ir_v1_StaticBackend__Output } from '../../../gw/ir/v1/StaticBackend.js';
import type { A2aBackend as _gw_ir_v1_A2aBackend, A2aBackend__Output as _gw_ir_v1_A2aBackend__Output } from '../../../gw/ir/v1/A2aBackend.js';
import type { DynamicForwardProxyBackend as _gw_ir_v1_DynamicForwardProxyBackend, DynamicForwardProxyBackend__Output as _gw_ir_v1_DynamicForwardProxyBackend__Output } from '../../../gw/ir/v1/DynamicForwardProxyBackend.js';
import type { AwsBackend as _gw_ir_v1_AwsBackend, AwsBackend__Output as _gw_ir_v1_AwsBackend__Output } from '../../../gw/ir/v1/AwsBackend.js';

export interface Backend {
  'name'?: (string);
  'mcp'?: (_gw_ir_v1_McpBackend | null);
  /**
   * Reserved slots so later kinds keep their numbers: ai = 3, static = 4, a2a = 5,
   * dynamic_forward_proxy = 6, aws = 7.
   */
  'ai'?: (_gw_ir_v1_AiBackend | null);
  'static'?: (_gw_ir_v1_StaticBackend | null);
  'a2a'?: (_gw_ir_v1_A2aBackend | null);
  'dynamicForwardProxy'?: (_gw_ir_v1_DynamicForwardProxyBackend | null);
  'aws'?: (_gw_ir_v1_AwsBackend | null);
  'kind'?: "mcp"|"ai"|"static"|"a2a"|"dynamicForwardProxy"|"aws";
}

export interface Backend__Output {
  'name': (string);
  'mcp'?: (_gw_ir_v1_McpBackend__Output | null);
  /**
   * Reserved slots so later kinds keep their numbers: ai = 3, static = 4, a2a = 5,
   * dynamic_forward_proxy = 6, aws = 7.
   */
  'ai'?: (_gw_ir_v1_AiBackend__Output | null);
  'static'?: (_gw_ir_v1_StaticBackend__Output | null);
  'a2a'?: (_gw_ir_v1_A2aBackend__Output | null);
  'dynamicForwardProxy'?: (_gw_ir_v1_DynamicForwardProxyBackend__Output | null);
  'aws'?: (_gw_ir_v1_AwsBackend__Output | null);
  'kind'?: "mcp"|"ai"|"static"|"a2a"|"dynamicForwardProxy"|"aws";
}
