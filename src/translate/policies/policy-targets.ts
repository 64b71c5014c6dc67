// Which GwPolicies attach where: targetRefs and targetSelectors, narrowed by sectionName or port,
// at one of the precedence levels of seed 001 (Gateway < Listener < Route < Route rule < Backend).
import type { GwPolicySpec } from '../../api/index.js';
import type { IrRefusal } from '../../coverage/effective.js';
import { lookup, memo, readAny, readGw, type Ctx } from '../objects/context.js';
import { uncheckedPolicySpec } from '../objects/gw-unchecked.js';
import { selectorMatches } from '../objects/read.js';
import { displayName, objectKey, type Kind, type StoredObject } from '../objects/types.js';
import { invalidObjectRefusals } from './invalid-objects.js';
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

/** What attaching reads of a policy: which sections it sets and its strategy. */
export interface AttachedSpec {
  frontend?: unknown;
  traffic?: unknown;
  backend?: unknown;
  strategy?: GwPolicySpec['strategy'];
}

/** One policy reaching one target through its `index`-th targetRef or targetSelector. */
export interface Attachment {
  policy: StoredObject;
  spec: AttachedSpec;
  /** `GwPolicy ns/name`, its creationTimestamp ('~' when missing: sorts as newest) and its sections. */
  source: string;
  created: string;
  override: boolean;
  sections: Partial<SectionTypes>;
  /** Index into spec.targetRefs or spec.targetSelectors. */
  targetIndex: number;
  sectionName?: string;
  port?: number;
  /**
   * An invalid policy that sets security fields (invalid-objects.ts): it contributes no values, only these
   * refusals, to every section of what it reaches.
   */
  refusals?: IrRefusal[];
}

/** Policies whose targetRefs name (kind, key) or whose targetSelectors match its labels. */
export function attachmentsOf(ctx: Ctx, target: StoredObject): Attachment[] {
  const ns = target.obj.metadata.namespace ?? '';
  const out: Attachment[] = [];
  const tk = objectKey(target.kind, target.key);
  for (const pk of lookup(ctx, 'policiesByTarget', tk)) {
    const p = attachable(ctx, pk);
    if (!p) continue;
    (p.spec.targetRefs ?? []).forEach((t, i) => {
      if (t.name === target.obj.metadata.name && kindMatches(t.kind, target.kind)) out.push(attachment(p, i, t));
    });
  }
  for (const pk of lookup(ctx, 'selectorPolicies', `${target.kind}/${ns}`)) {
    const p = attachable(ctx, pk);
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

function kindMatches(k: string | undefined, kind: Kind): boolean {
  return k === kind || (kind === 'ListenerSet' && k === 'XListenerSet');
}

/** A policy as attaching sees it: valid, or invalid but setting security fields; else undefined. */
interface Attachable {
  entry: StoredObject;
  spec: AttachedSpec & { targetRefs?: readonly PolicyTarget[]; targetSelectors?: readonly PolicyTarget[] };
  sections: Attachment['sections'];
  refusals?: IrRefusal[];
}

/** A targetRef or targetSelector, typed (valid policy) or narrowed (gw-unchecked.ts). */
interface PolicyTarget {
  kind?: string;
  name?: string;
  sectionName?: string;
  port?: number;
  matchLabels?: unknown;
}

function attachable(ctx: Ctx, key: string): Attachable | undefined {
  const p = readGw(ctx, 'GwPolicy', key);
  if (p) {
    const { spec } = p;
    const sections: Attachment['sections'] = {};
    if (spec.frontend) sections.frontend = spec.frontend;
    if (spec.traffic) sections.traffic = spec.traffic;
    if (spec.backend) sections.backend = spec.backend;
    return { entry: p.entry, spec, sections };
  }
  // Invalid: nothing of it is applied, but its security fields keep their targets closed (issue 31).
  const e = readAny(ctx, 'GwPolicy', key);
  const refusals = e ? invalidObjectRefusals('GwPolicy', e) : [];
  if (!e || refusals.length === 0) return undefined;
  const raw = (e.obj.spec ?? {}) as Record<string, unknown>;
  const { targetRefs, targetSelectors } = uncheckedPolicySpec(e.obj.spec);
  return {
    entry: e,
    spec: { frontend: raw.frontend, traffic: raw.traffic, backend: raw.backend, targetRefs, targetSelectors },
    sections: {},
    refusals,
  };
}

function attachment(p: Attachable, targetIndex: number, t: PolicyTarget): Attachment {
  const { entry: policy, spec, sections } = p;
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
  if (p.refusals) a.refusals = p.refusals;
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
    attachmentsOf(ctx, target).filter((a) => attachmentProblem(a.spec, target.kind, { port: a.port }) === undefined),
  );
}
