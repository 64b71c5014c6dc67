// Kubernetes conditions and the status pieces one gateway's translation contributes to other objects.
import type { Conflict } from './policy-merge.js';

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  observedGeneration: number;
  lastTransitionTime: string;
}

export function condition(type: string, ok: boolean, reason: string, message: string, generation: number, now: string): Condition {
  return { type, status: ok ? 'True' : 'False', reason, message, observedGeneration: generation, lastTransitionTime: now };
}

export interface ParentStatus {
  parentRef: Record<string, unknown>;
  controllerName: string;
  conditions: Condition[];
}

export interface ListenerStatus {
  name: string;
  attachedRoutes: number;
  supportedKinds: { group: string; kind: string }[];
  conditions: Condition[];
}

/** What one gateway's translation says about an object other than the gateway itself. */
export type StatusPiece =
  | { kind: 'gateway'; status: { conditions: Condition[]; listeners: ListenerStatus[] } }
  | { kind: 'listenerSet'; status: { conditions: Condition[]; listeners: ListenerStatus[] } }
  | { kind: 'parent'; parent: ParentStatus }
  | { kind: 'policyAttached'; targetIndex: number; gateway: string }
  | { kind: 'policyConflict'; conflict: Conflict }
  | { kind: 'backendRefProblem'; message: string };
