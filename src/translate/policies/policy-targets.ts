// Which GwPolicies attach where: targetRefs and targetSelectors, narrowed by sectionName or port,
// at one of the precedence levels of seed 001 (Gateway < Listener < Route < Route rule < Backend).
import { lookup, memo, read, type Ctx } from '../objects/context.js';
import { rec, recs, selectorMatches, str, num, type Rec } from '../objects/read.js';
import { displayName, objectKey, type Kind, type StoredObject } from '../objects/types.js';

export type Level =
  'Gateway' | 'Listener' | 'Route' | 'RouteRule' | 'Backend' | 'BackendSection' | 'BackendOwn' | 'Target';

// A policy narrowed by sectionName (a Service port, an MCP target, an AI provider) is more specific than one
// on the whole backend, as a rule's is than a route's; policy resources still lose to the backend's own.
export const LEVEL_RANK: Record<Level, number> = {
  Gateway: 1,
  Listener: 2,
  Route: 3,
  RouteRule: 4,
  Backend: 5,
  BackendSection: 6,
  BackendOwn: 7,
  Target: 8,
};

/** One policy reaching one target through its `index`-th targetRef or targetSelector. */
export interface Attachment {
  policy: StoredObject;
  /** `GwPolicy ns/name`, its creationTimestamp ('~' when missing: sorts as newest) and its sections. */
  source: string;
  created: string;
  override: boolean;
  sections: { frontend?: Rec; traffic?: Rec; backend?: Rec };
  /** Index into spec.targetRefs or spec.targetSelectors. */
  targetIndex: number;
  sectionName?: string;
  port?: number;
}

/** Policies whose targetRefs name (kind, key) or whose targetSelectors match its labels. */
export function attachmentsOf(ctx: Ctx, target: StoredObject): Attachment[] {
  const ns = target.obj.metadata.namespace ?? '';
  const out: Attachment[] = [];
  const tk = objectKey(target.kind, target.key);
  for (const pk of lookup(ctx, 'policiesByTarget', tk)) {
    const p = read(ctx, 'GwPolicy', pk);
    if (!p) continue;
    recs(rec(p.obj.spec)?.targetRefs).forEach((t, i) => {
      if (str(t.name) === target.obj.metadata.name && kindMatches(t, target.kind)) out.push(attachment(p, i, t));
    });
  }
  for (const pk of lookup(ctx, 'selectorPolicies', `${target.kind}/${ns}`)) {
    const p = read(ctx, 'GwPolicy', pk);
    if (!p) continue;
    recs(rec(p.obj.spec)?.targetSelectors).forEach((t, i) => {
      if (kindMatches(t, target.kind) && selectorMatches({ matchLabels: t.matchLabels }, target.obj.metadata.labels))
        out.push(attachment(p, i, t));
    });
  }
  return out;
}

function kindMatches(t: Rec, kind: Kind): boolean {
  const k = str(t.kind);
  return k === kind || (kind === 'ListenerSet' && k === 'XListenerSet');
}

function attachment(policy: StoredObject, targetIndex: number, t: Rec): Attachment {
  const spec = rec(policy.obj.spec) ?? {};
  const sections: Attachment['sections'] = {};
  for (const k of ['frontend', 'traffic', 'backend'] as const) {
    const v = rec(spec[k]);
    if (v) sections[k] = v;
  }
  const a: Attachment = {
    policy,
    targetIndex,
    sections,
    source: displayName('GwPolicy', policy.key),
    created: policy.obj.metadata.creationTimestamp ?? '~',
    override: str(rec(spec.strategy)?.inheritance) === 'Override',
  };
  const s = str(t.sectionName);
  const p = num(t.port);
  if (s !== undefined) a.sectionName = s;
  if (p !== undefined) a.port = p;
  return a;
}

const TRAFFIC_TARGETS: ReadonlySet<Kind> = new Set<Kind>(['Gateway', 'ListenerSet', 'HTTPRoute', 'GRPCRoute']);

/**
 * Why this policy may not attach to a target of this kind, or undefined when it may. Seed 001: a
 * frontend policy targets only a Gateway; `port` only on frontend-only policies targeting a Gateway;
 * traffic settings never on a Service or GwBackend.
 */
export function attachmentProblem(spec: Rec, targetKind: Kind, ref: Rec): string | undefined {
  if (spec.frontend !== undefined && targetKind !== 'Gateway')
    return `frontend settings can only target a Gateway, not a ${targetKind}`;
  if (ref.port !== undefined && (targetKind !== 'Gateway' || spec.traffic !== undefined || spec.backend !== undefined))
    return 'port may only be used by a frontend-only policy that targets a Gateway';
  if (spec.traffic !== undefined && !TRAFFIC_TARGETS.has(targetKind))
    return `traffic settings cannot target a ${targetKind}`;
  return undefined;
}

/** Attachments that are allowed for the target kind (invalid ones show up in the policy's status only). */
export function validAttachments(ctx: Ctx, target: StoredObject): Attachment[] {
  return memo(ctx, `attachments:${target.kind}/${target.key}`, () =>
    attachmentsOf(ctx, target).filter((a) => {
      const spec = rec(a.policy.obj.spec) ?? {};
      const list = recs(spec.targetRefs ?? spec.targetSelectors);
      return attachmentProblem(spec, target.kind, list[a.targetIndex] ?? {}) === undefined;
    }),
  );
}
