// Original file: proto/gw/ir/v1/ir.proto

import type { Bind as _gw_ir_v1_Bind, Bind__Output as _gw_ir_v1_Bind__Output } from '../../../gw/ir/v1/Bind.js';
import type { Listener as _gw_ir_v1_Listener, Listener__Output as _gw_ir_v1_Listener__Output } from '../../../gw/ir/v1/Listener.js';
import type { Route as _gw_ir_v1_Route, Route__Output as _gw_ir_v1_Route__Output } from '../../../gw/ir/v1/Route.js';
import type { Backend as _gw_ir_v1_Backend, Backend__Output as _gw_ir_v1_Backend__Output } from '../../../gw/ir/v1/Backend.js';

export interface Resource {
  'bind'?: (_gw_ir_v1_Bind | null);
  'listener'?: (_gw_ir_v1_Listener | null);
  'route'?: (_gw_ir_v1_Route | null);
  'backend'?: (_gw_ir_v1_Backend | null);
  'kind'?: "bind"|"listener"|"route"|"backend";
}

export interface Resource__Output {
  'bind'?: (_gw_ir_v1_Bind__Output | null);
  'listener'?: (_gw_ir_v1_Listener__Output | null);
  'route'?: (_gw_ir_v1_Route__Output | null);
  'backend'?: (_gw_ir_v1_Backend__Output | null);
  'kind'?: "bind"|"listener"|"route"|"backend";
}
