// What the status writer sends, decided purely: the fields this controller owns, merged with what
// other controllers wrote (their route parents stay), lastTransitionTime kept wherever a condition's
// status did not change, and nothing at all when the result equals what is stored.
import { stableStringify } from '../translate/objects/read.js';
import type { Condition } from '../translate/status/conditions.js';

type Rec = Record<string, unknown>;

const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Kinds whose status lists entries per controller (`parents[].controllerName`, `ancestors[].controllerName`). */
const SHARED: Record<string, 'parents' | 'ancestors'> = {
  HTTPRoute: 'parents',
  GRPCRoute: 'parents',
  GwModel: 'parents',
  // The Inference Extension's pool: `parents[].controllerName` per Gateway controller.
  InferencePool: 'parents',
  BackendTLSPolicy: 'ancestors',
};

/** Identity of a list item, so lists are matched by meaning rather than position. */
function itemKey(v: unknown): string | undefined {
  if (!isRec(v)) return undefined;
  if (typeof v.type === 'string' && typeof v.status === 'string') return `type:${v.type}`;
  if (isRec(v.parentRef)) return `parent:${String(v.controllerName)}:${stableStringify(v.parentRef)}`;
  if (isRec(v.ancestorRef)) return `ancestor:${String(v.controllerName)}:${stableStringify(v.ancestorRef)}`;
  if (typeof v.name === 'string') return `name:${v.name}`;
  return undefined;
}

/**
 * Copies lastTransitionTime from `prev` into `next` wherever a condition (matched by type, inside
 * list items matched by identity) kept its status: Kubernetes semantics, and no write churn.
 */
export function keepTransitionTimes<T>(prev: unknown, next: T): T {
  if (Array.isArray(next)) {
    const p = Array.isArray(prev) ? prev : [];
    const byKey = new Map<string, unknown>();
    for (const item of p) {
      const k = itemKey(item);
      if (k) byKey.set(k, item);
    }
    return next.map((item, i) => {
      const k = itemKey(item);
      const old = k ? byKey.get(k) : p[i];
      if (k?.startsWith('type:') && isRec(old) && isRec(item)) {
        const c = item as unknown as Condition;
        return old.status === c.status && typeof old.lastTransitionTime === 'string'
          ? { ...c, lastTransitionTime: old.lastTransitionTime }
          : c;
      }
      return keepTransitionTimes(old, item);
    }) as T;
  }
  if (isRec(next)) {
    const p = isRec(prev) ? prev : {};
    return Object.fromEntries(Object.entries(next).map(([k, v]) => [k, keepTransitionTimes(p[k], v)])) as T;
  }
  return next;
}

/**
 * The status fields to write for `kind`, or undefined when the stored status already says the same.
 * `desired` undefined means this controller has nothing to say: on shared route kinds our old parent
 * entries are then removed; elsewhere nothing is written.
 */
export function statusPatch(
  kind: string,
  current: unknown,
  desired: Rec | undefined,
  controllerName: string,
): Rec | undefined {
  const cur = isRec(current) ? current : {};
  let next: Rec;
  const list = SHARED[kind];
  if (list) {
    const stored = Array.isArray(cur[list]) ? (cur[list] as unknown[]) : [];
    const theirs = stored.filter((p) => !isRec(p) || p.controllerName !== controllerName);
    const ours = desired && Array.isArray(desired[list]) ? (desired[list] as unknown[]) : [];
    if (!desired && theirs.length === stored.length) return undefined;
    next = { ...(desired ?? {}), [list]: [...theirs, ...ours] };
  } else {
    if (!desired) return undefined;
    next = desired;
  }
  const kept = keepTransitionTimes(cur, next);
  const same = Object.keys(kept).every((k) => stableStringify(cur[k] ?? null) === stableStringify(kept[k] ?? null));
  return same ? undefined : kept;
}

/** Replaces (by type) or adds conditions: how deployer outcomes join a Gateway's translated status. */
export function withConditions(status: Rec, extra: readonly Condition[]): Rec {
  if (extra.length === 0) return status;
  const conds = Array.isArray(status.conditions) ? (status.conditions as Condition[]) : [];
  const types = new Set(extra.map((c) => c.type));
  return { ...status, conditions: [...conds.filter((c) => !types.has(c.type)), ...extra] };
}

export interface Rejection {
  gateway: string;
  /** The xDS resource name, e.g. `listener/ns/web/http`. */
  resource: string;
  message: string;
}

const rejectedCondition = (msgs: string[], gen: unknown, now: string): Condition => ({
  type: 'Programmed',
  status: 'False',
  reason: 'RejectedByProxy',
  message: msgs.sort().join('; ').slice(0, 32_000),
  observedGeneration: typeof gen === 'number' ? gen : 0,
  lastTransitionTime: now,
});

/**
 * Proxy refusals as conditions: `Programmed=False, reason RejectedByProxy` on objects with conditions
 * (and on a listener entry whose listener a proxy refused), and on the route parent entries of the
 * Gateway whose proxies refused the route. `elsewhere` (a Gateway's only): other objects its proxies do
 * not serve; a Programmed=True condition then says so instead of claiming the whole snapshot.
 */
export function withRejections(
  status: Rec,
  rejections: readonly Rejection[],
  now: string,
  elsewhere: readonly string[] = [],
): Rec {
  if (Array.isArray(status.conditions)) {
    const conds = status.conditions as Condition[];
    const gen = conds[0]?.observedGeneration;
    const out = rejections.length
      ? withConditions(status, [
          rejectedCondition(
            rejections.map((r) => r.message),
            gen,
            now,
          ),
        ])
      : withElsewhere(status, elsewhere);
    return Array.isArray(out.listeners)
      ? { ...out, listeners: listenersWith(out.listeners as Rec[], rejections, now) }
      : out;
  }
  if (Array.isArray(status.parents)) {
    const parents = (status.parents as Rec[]).map((p) => {
      const ref = isRec(p.parentRef) ? p.parentRef : {};
      const mine = rejections.filter(
        (r) =>
          r.gateway.endsWith(`/${String(ref.name)}`) &&
          (ref.namespace === undefined || r.gateway.startsWith(`${String(ref.namespace)}/`)),
      );
      const conds = Array.isArray(p.conditions) ? (p.conditions as Condition[]) : [];
      return mine.length
        ? withConditions(p, [
            rejectedCondition(
              mine.map((r) => r.message),
              conds[0]?.observedGeneration,
              now,
            ),
          ])
        : p;
    });
    return { ...status, parents };
  }
  return status;
}

/** Programmed=True names what its proxies do not serve, so it claims no more than they do. */
function withElsewhere(status: Rec, elsewhere: readonly string[]): Rec {
  const conds = status.conditions as Condition[];
  const programmed = conds.find((c) => c.type === 'Programmed');
  if (elsewhere.length === 0 || programmed?.status !== 'True') return status;
  const listed =
    elsewhere.slice(0, 20).join(', ') + (elsewhere.length > 20 ? `, and ${elsewhere.length - 20} more` : '');
  const message = `${programmed.message}; its proxies do not serve all of it, see the status of: ${listed}`;
  return withConditions(status, [{ ...programmed, message }]);
}

/** A listener entry whose listener resource (`listener/…/NAME`) a proxy refused: Programmed=False there too. */
function listenersWith(listeners: Rec[], rejections: readonly Rejection[], now: string): Rec[] {
  return listeners.map((l) => {
    const mine = rejections.filter(
      (r) => r.resource.startsWith('listener/') && r.resource.slice(r.resource.lastIndexOf('/') + 1) === l.name,
    );
    if (mine.length === 0) return l;
    const conds = Array.isArray(l.conditions) ? (l.conditions as Condition[]) : [];
    return withConditions(l, [
      rejectedCondition(
        mine.map((r) => r.message),
        conds[0]?.observedGeneration,
        now,
      ),
    ]);
  });
}
