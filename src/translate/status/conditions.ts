// Kubernetes conditions and the status pieces one gateway's translation contributes to other objects.
import type { Conflict } from '../policies/policy-merge.js';

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  observedGeneration: number;
  lastTransitionTime: string;
}

export function condition(
  type: string,
  ok: boolean,
  reason: string,
  message: string,
  generation: number,
  now: string,
): Condition {
  return {
    type,
    status: ok ? 'True' : 'False',
    reason,
    message,
    observedGeneration: generation,
    lastTransitionTime: now,
  };
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
  | { kind: 'backendRefProblem'; message: string }
  | { kind: 'backendTlsPolicy'; gateway: string }
  /**
   * The object's `certificateSource: SPIFFE` is not served through this Gateway: its proxy has no workload
   * identity. For a GwPolicy, `targetIndex` is the targetRef or targetSelector whose edges are left out.
   */
  | { kind: 'identityMissing'; gateway: string; targetIndex?: number }
  /** A field the policy sets that does not act on a route it reaches (scope-refusals.ts). */
  | { kind: 'policyRefusal'; field: string; reason: string };

function isCondition(v: unknown): v is Condition {
  return typeof v === 'object' && v !== null && 'type' in v && 'status' in v && 'lastTransitionTime' in v;
}

/**
 * Kubernetes semantics for lastTransitionTime: it changes only when a condition's status changes. Walks
 * `next` alongside `prev` (lists by position, conditions by type) and keeps the earlier time where the
 * status is unchanged, so an unchanged object's status stays byte-identical across translations.
 */
export function keepTransitionTimes<T>(prev: unknown, next: T): T {
  if (Array.isArray(next)) {
    const p = Array.isArray(prev) ? prev : [];
    if (next.every(isCondition)) {
      return next.map((c: Condition) => {
        const old = p.find((o): o is Condition => isCondition(o) && o.type === c.type);
        return old && old.status === c.status ? { ...c, lastTransitionTime: old.lastTransitionTime } : c;
      }) as T;
    }
    return next.map((n, i) => keepTransitionTimes(p[i], n)) as T;
  }
  if (typeof next === 'object' && next !== null) {
    const p = (typeof prev === 'object' && prev !== null ? prev : {}) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(next).map(([k, v]) => [k, keepTransitionTimes(p[k], v)])) as T;
  }
  return next;
}

/**
 * `Enforced=False` for an accepted object: reason `Unsupported` naming each refused field (issue 14),
 * followed by what else the proxies cannot enforce as written (reason `NotEnforced` when only that).
 */
export function enforcedCondition(
  refused: string,
  notEnforced: string,
  generation: number,
  now: string,
): Condition | undefined {
  if (!refused && !notEnforced) return undefined;
  const message = [refused && `not enforced by this release: ${refused}`, notEnforced].filter(Boolean).join('; ');
  return condition('Enforced', false, refused ? 'Unsupported' : 'NotEnforced', message, generation, now);
}

/**
 * `RulesCanMatch=False, reason UnknownMember` when an authorization rule reads a member its variable never has
 * (`mcp.tools`): the rule compiles but never matches through that read, so a Deny rule on it never denies
 * (issue 31). Absent otherwise. The same lines `gw validate` prints as warnings.
 */
export function rulesCanMatchCondition(
  warnings: readonly string[],
  generation: number,
  now: string,
): Condition | undefined {
  if (warnings.length === 0) return undefined;
  return condition('RulesCanMatch', false, 'UnknownMember', warnings.join('; '), generation, now);
}
