// Which GwPolicies attach where: targetRefs and targetSelectors, narrowed by sectionName or port,
// at one of the precedence levels of seed 001 (Gateway < Listener < Route < Route rule < Backend).
import type { GwPolicySpec } from '../../api/index.js';
import { lookup, memo, readGw, type Ctx } from '../objects/context.js';
import type { GwObject } from '../objects/gw-objects.js';
import { selectorMatches } from '../objects/read.js';
import { displayName, objectKey, type Kind, type StoredObject } from '../objects/types.js';
import type { PolicyTargetRef, PolicyTargetSelector } from '../objects/gw-types.js';
import type { SectionTypes } from './policy-sections.js';

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
  spec: GwPolicySpec;
  /** `GwPolicy ns/name`, its creationTimestamp ('~' when missing: sorts as newest) and its sections. */
  source: string;
  created: string;
  override: boolean;
  sections: Partial<SectionTypes>;
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
    const p = readGw(ctx, 'GwPolicy', pk);
    if (!p) continue;
    (p.spec.targetRefs ?? []).forEach((t, i) => {
      if (t.name === target.obj.metadata.name && kindMatches(t.kind, target.kind)) out.push(attachment(p, i, t));
    });
  }
  for (const pk of lookup(ctx, 'selectorPolicies', `${target.kind}/${ns}`)) {
    const p = readGw(ctx, 'GwPolicy', pk);
    if (!p) continue;
    (p.spec.targetSelectors ?? []).forEach((t, i) => {
      if (
        kindMatches(t.kind, target.kind) &&
        selectorMatches({ matchLabels: t.matchLabels }, target.obj.metadata.labels)
      )
        out.push(attachment(p, i, t));
    });
  }
  return out;
}

function kindMatches(k: string, kind: Kind): boolean {
  return k === kind || (kind === 'ListenerSet' && k === 'XListenerSet');
}

function attachment(
  p: GwObject<'GwPolicy'>,
  targetIndex: number,
  t: PolicyTargetRef | PolicyTargetSelector,
): Attachment {
  const { entry: policy, spec } = p;
  const sections: Attachment['sections'] = {};
  if (spec.frontend) sections.frontend = spec.frontend;
  if (spec.traffic) sections.traffic = spec.traffic;
  if (spec.backend) sections.backend = spec.backend;
  const a: Attachment = {
    policy,
    spec,
    targetIndex,
    sections,
    source: displayName('GwPolicy', policy.key),
    created: policy.obj.metadata.creationTimestamp ?? '~',
    override: spec.strategy?.inheritance === 'Override',
  };
  if (t.sectionName !== undefined) a.sectionName = t.sectionName;
  if (t.port !== undefined) a.port = t.port;
  return a;
}

const TRAFFIC_TARGETS: ReadonlySet<Kind> = new Set<Kind>(['Gateway', 'ListenerSet', 'HTTPRoute', 'GRPCRoute']);

/**
 * Why this policy may not attach to a target of this kind, or undefined when it may. Seed 001: a
 * frontend policy targets only a Gateway; `port` only on frontend-only policies targeting a Gateway;
 * traffic settings never on a Service or GwBackend.
 */
export function attachmentProblem(
  spec: { frontend?: unknown; traffic?: unknown; backend?: unknown },
  targetKind: Kind,
  ref: { port?: unknown },
): string | undefined {
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
      const list = a.spec.targetRefs ?? a.spec.targetSelectors ?? [];
      return attachmentProblem(a.spec, target.kind, list[a.targetIndex] ?? {}) === undefined;
    }),
  );
}
