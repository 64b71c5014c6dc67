// Builds the candidate lists for each place a policy takes effect and hands them to the one merge.
import type { Ctx } from '../objects/context.js';
import type { ListenerInfo } from '../listeners/listeners.js';
import {
  inlineCandidate,
  mergePolicies,
  policyCandidate,
  type Candidate,
  type EffectivePolicy,
} from './policy-merge.js';
import type { Section } from './policy-sections.js';
import { validAttachments, type Attachment, type Level } from './policy-targets.js';
import type { BackendFull } from '../../api/index.js';
import type { StoredObject } from '../objects/types.js';

export interface Leveled {
  attachment: Attachment;
  level: Level;
}

/** Attachments of a gateway and its ListenerSets, resolved once per gateway translation. */
export interface GatewayPolicies {
  gateway: Attachment[];
  listenerSets: Map<string, Attachment[]>;
  /** `policyKey|targetIndex` of every attachment that took effect somewhere. */
  used: Set<string>;
}

export function gatewayPolicies(ctx: Ctx, gw: StoredObject, listenerSets: StoredObject[]): GatewayPolicies {
  const ls = new Map<string, Attachment[]>();
  for (const s of listenerSets) ls.set(s.key, validAttachments(ctx, s));
  return { gateway: validAttachments(ctx, gw), listenerSets: ls, used: new Set() };
}

/** Gateway- and listener-level attachments that reach one listener. */
export function listenerLevels(gp: GatewayPolicies, l: ListenerInfo): Leveled[] {
  const out: Leveled[] = [];
  const ownedByGateway = l.owner.kind === 'Gateway';
  for (const a of gp.gateway) {
    if (a.sectionName === undefined && a.port === undefined) out.push({ attachment: a, level: 'Gateway' });
    else if (a.port === l.port || (ownedByGateway && a.sectionName === l.name))
      out.push({ attachment: a, level: 'Listener' });
  }
  if (!ownedByGateway) {
    for (const a of gp.listenerSets.get(l.owner.key) ?? []) {
      if (a.sectionName === undefined || a.sectionName === l.name) out.push({ attachment: a, level: 'Listener' });
    }
  }
  return out;
}

/** Route- and rule-level attachments of one route rule. */
export function routeLevels(routeAttachments: Attachment[], ruleName: string | undefined): Leveled[] {
  const out: Leveled[] = [];
  for (const a of routeAttachments) {
    if (a.sectionName === undefined) out.push({ attachment: a, level: 'Route' });
    else if (ruleName !== undefined && a.sectionName === ruleName) out.push({ attachment: a, level: 'RouteRule' });
  }
  return out;
}

export function candidates(gp: GatewayPolicies, leveled: readonly Leveled[], section: Section): Candidate[] {
  const out: Candidate[] = [];
  for (const { attachment, level } of leveled) {
    const c = policyCandidate(attachment, level, section);
    if (!c) continue;
    gp.used.add(`${attachment.policy.key}|${attachment.targetIndex}`);
    out.push(c);
  }
  return out;
}

export function frontendPolicy(gp: GatewayPolicies, l: ListenerInfo): EffectivePolicy {
  return mergePolicies('frontend', candidates(gp, listenerLevels(gp, l), 'frontend'));
}

export function routePolicy(gp: GatewayPolicies, leveled: readonly Leveled[]): EffectivePolicy {
  return mergePolicies(
    'backend',
    candidates(gp, leveled, 'backend'),
    mergePolicies('traffic', candidates(gp, leveled, 'traffic')),
  );
}

/**
 * Backend settings for one route → backend edge: route-side levels, then policies targeting the
 * Service or GwBackend, then the backend's own `policies`, then (for one MCP target or AI provider)
 * policies targeting that sub-backend and its own `policies`.
 */
export function backendPolicy(
  gp: GatewayPolicies,
  routeSide: readonly Leveled[],
  backendSide: readonly Leveled[],
  own: { source: string; values: BackendFull | undefined } | undefined,
  sub?: { leveled: readonly Leveled[]; source: string; values: BackendFull | undefined },
): EffectivePolicy {
  const list = candidates(gp, [...routeSide, ...backendSide, ...(sub?.leveled ?? [])], 'backend');
  const o = own && inlineCandidate(own.source, 'BackendOwn', own.values);
  if (o) list.push(o);
  const t = sub && inlineCandidate(sub.source, 'Target', sub.values);
  if (t) list.push(t);
  return mergePolicies('backend', list);
}
