// Where one Gateway's translation collects its routes, the backends they reach, status pieces and policy
// conflicts; its own file so the route files can share it without importing each other in a circle.
import type { BackendInput, RouteInput } from '../../ir/types.js';
import type { Named } from '../built-ir.js';
import type { Conflict } from '../policies/policy-merge.js';
import type { StatusPiece } from '../status/conditions.js';

export interface RouteSink {
  routes: Named<RouteInput>[];
  backends: Map<string, BackendInput>;
  piece(objKey: string, p: StatusPiece): void;
  conflicts: Conflict[];
}
