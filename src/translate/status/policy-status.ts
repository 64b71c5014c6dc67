// The status of a GwPolicy: one ancestor per object it targets (by ref or by selector) with Accepted,
// Attached and, when they apply, Conflicted, Enforced and ResolvedRefs. A valid policy is read as its schema
// type; an invalid one only lists its targets (gw-unchecked.ts) and says it is invalid.
import type { GwPolicySpec } from '../../api/index.js';
import { refusalText, type FieldRefusal } from '../../coverage/index.js';
import { unenforcedEdgeAuth, type EdgeAuthTarget } from '../backends/backend-auth.js';
import { unservableCloudAuth } from '../backends/cloud-credentials.js';
import { policyGuardrailProblems } from '../backends/mcp-guardrails.js';
import { promptGuardLookup, translatePromptGuard } from '../backends/prompt-guard.js';
import { newCtx, type TranslateOptions } from '../objects/context.js';
import { gatewaySpec, listenerSetSpec, routeSpec, serviceSpec } from '../objects/gateway-api.js';
import { gwSpec } from '../objects/gw-objects.js';
import { uncheckedBackendSpec, uncheckedPolicySpec, type UncheckedTarget } from '../objects/gw-unchecked.js';
import { selectorMatches } from '../objects/read.js';
import { getObject, listObjects, refKind, type Store } from '../objects/store.js';
import { nameKey, type Kind, type StoredObject } from '../objects/types.js';
import { extAuthCelProblems } from '../policies/ext-auth.js';
import { extProcCelProblems } from '../policies/ext-proc.js';
import { globalRateLimitCelProblems } from '../policies/global-rate-limit.js';
import { unenforceableAuth } from '../policies/ir-policy.js';
import { apiKeyDuplicates } from '../policies/api-keys.js';
import { namespaceSecretReader } from '../policies/policy-secrets.js';
import { closedFieldName, invalidObjectRefusals } from '../policies/invalid-objects.js';
import { attachmentProblem } from '../policies/policy-targets.js';
import { isOurClass } from '../translate.js';
import { gatewayList, identityMissingText } from '../objects/gateway-identity.js';
import {
  condition,
  enforcedCondition,
  rulesCanMatchCondition,
  type Condition,
  type StatusPiece,
} from './conditions.js';
import { authorizationCelWarningLines } from '../objects/validate-gw.js';
import { specRefusals } from './spec-refusals.js';

export const MAX_POLICY_ANCESTORS = 16;

/** A Gateway API ancestorRef: the policy's target, with sectionName and port as the policy wrote them. */
export interface AncestorRef {
  group: string;
  kind: string;
  namespace: string;
  name: string;
  sectionName?: unknown;
  port?: unknown;
}

/** One entry of a GwPolicy's status.ancestors. */
export interface AncestorStatus {
  ancestorRef: AncestorRef;
  controllerName: string;
  conditions: Condition[];
}

/** What objectStatus says about a GwPolicy. */
export type PolicyObjectStatus = { ancestors: AncestorStatus[] };

interface Ancestor {
  ref: AncestorRef;
  targetIndex: number;
  /** Why the policy cannot take effect on this ancestor, if it cannot. */
  problem?: { reason: string; message: string };
}

/** A GwPolicy's status: one ancestor per target, at most MAX_POLICY_ANCESTORS. */
export function policyStatus(
  store: Store,
  e: StoredObject,
  pieces: readonly StatusPiece[],
  problemText: string,
  options: TranslateOptions,
): PolicyObjectStatus {
  return { ancestors: policyAncestors(store, e, pieces, problemText, options).slice(0, MAX_POLICY_ANCESTORS) };
}

/**
 * The ancestors of a valid or invalid policy. An invalid one says only that it is invalid (its problems):
 * its targets are still listed, but nothing else of it is read.
 */
function policyAncestors(
  store: Store,
  e: StoredObject,
  pieces: readonly StatusPiece[],
  problemText: string,
  options: TranslateOptions,
): AncestorStatus[] {
  const spec = gwSpec('GwPolicy', e);
  const texts = spec ? policyTexts(store, e, spec, pieces, options) : NO_TEXTS;
  return policyTargets(store, e, spec, options).map((a) => ancestorStatus(e, a, pieces, problemText, texts, options));
}

/**
 * One ancestor per targetRef, and one per object each targetSelector matches (or one saying none does);
 * `spec` (the valid policy) also says why it cannot take effect on each.
 */
function policyTargets(
  store: Store,
  e: StoredObject,
  spec: GwPolicySpec | undefined,
  options: TranslateOptions,
): Ancestor[] {
  const ns = e.obj.metadata.namespace ?? '';
  const ancestors: Ancestor[] = [];
  const targets = uncheckedPolicySpec(e.obj.spec);
  const problem = (kind: Kind | undefined, target: StoredObject | undefined, t: UncheckedTarget) =>
    spec && targetProblem(store, spec, kind, target, t, options);
  (targets.targetRefs ?? []).forEach((t, i) => {
    const kind = refKind(t.group, t.kind, 'Gateway');
    const ref = { group: t.group ?? '', kind: t.kind ?? '', namespace: ns, name: t.name ?? '', ...section(t) };
    const target = kind && getObject(store, kind, nameKey(ns, ref.name));
    ancestors.push({ ref, targetIndex: i, problem: problem(kind, target, t) });
  });
  (targets.targetSelectors ?? []).forEach((t, i) => {
    const kind = refKind(t.group, t.kind, 'Gateway');
    const matched = kind
      ? listObjects(store, kind).filter(
          (o) =>
            o.obj.metadata.namespace === ns && selectorMatches({ matchLabels: t.matchLabels }, o.obj.metadata.labels),
        )
      : [];
    const ref = (name: string) => ({ group: t.group ?? '', kind: t.kind ?? '', namespace: ns, name, ...section(t) });
    if (matched.length === 0) {
      const message = `no ${t.kind ?? 'object'} in namespace ${ns} matches the labels`;
      ancestors.push({ ref: ref(''), targetIndex: i, problem: { reason: 'TargetNotFound', message } });
    }
    for (const o of matched.sort((a, b) => (a.key < b.key ? -1 : 1))) {
      ancestors.push({ ref: ref(o.obj.metadata.name), targetIndex: i, problem: problem(kind, o, t) });
    }
  });
  return ancestors;
}

/** What the policy's own content says on every ancestor: invalid parts, refusals, what its proxies refuse. */
interface PolicyTexts {
  invalidText: string;
  enforcedText: string;
  refusals: FieldRefusal[];
  guardrails: ReturnType<typeof policyGuardrailProblems>;
  /** Authorization rules that read a member their variable never has (RulesCanMatch). */
  celWarnings: string[];
  /** API keys found in more than one selected object (ApiKeysUnique); empty when none is. */
  keyDuplicates: string;
}

const NO_TEXTS: PolicyTexts = {
  invalidText: '',
  enforcedText: '',
  refusals: [],
  guardrails: { invalid: [], refs: [] },
  celWarnings: [],
  keyDuplicates: '',
};

function policyTexts(
  store: Store,
  e: StoredObject,
  spec: GwPolicySpec,
  pieces: readonly StatusPiece[],
  options: TranslateOptions,
): PolicyTexts {
  const ns = e.obj.metadata.namespace ?? '';
  const ctx = newCtx(store, options);
  const extAuth = spec.traffic?.extAuth;
  const guardrails = policyGuardrailProblems(ctx, e.key, spec.backend ?? {});
  // Found by compiling, not by the schema: the policy still takes effect (its routes fail closed), so only Accepted says so.
  const extProc = spec.traffic?.extProc;
  const globalLimit = spec.traffic?.rateLimit?.global;
  const celInvalid = [
    ...(extAuth ? extAuthCelProblems(extAuth).map((p) => `spec.traffic.extAuth.${p.path}: ${p.message}`) : []),
    ...(extProc ? extProcCelProblems(extProc).map((p) => `spec.traffic.extProc.${p.path}: ${p.message}`) : []),
    ...(globalLimit
      ? globalRateLimitCelProblems(globalLimit).map((p) => `spec.traffic.rateLimit.global.${p.path}: ${p.message}`)
      : []),
  ];
  const invalidText = [
    ...(celInvalid.length ? [...celInvalid, 'the routes it reaches refuse their requests with 503'] : []),
    ...(guardrails.invalid.length ? [...guardrails.invalid, 'the MCP methods those processors match are refused'] : []),
  ].join('; ');
  // What the coverage table refuses is said once, by `refused`; the lists below keep only the rest.
  // The table's refusals, plus fields that do not act on the kind of route they reached (per translation).
  const scoped = new Map<string, FieldRefusal>();
  for (const p of pieces)
    if (p.kind === 'policyRefusal') scoped.set(p.field, { field: p.field, reason: p.reason, security: false });
  const refusals = [
    ...specRefusals('GwPolicy', spec),
    ...[...scoped.values()].sort((a, b) => (a.field < b.field ? -1 : 1)),
  ];
  const notRefused = (line: string): boolean => !sameAsRefusal(refusals, line);
  const unenforced = [
    ...Object.entries(unenforceableAuth(spec.traffic ?? {}, namespaceSecretReader(ctx, ns))).map(
      ([field, why]) => `traffic.${field}: ${why}`,
    ),
    ...unenforceableGuards(spec, `GwPolicy ${e.key}`, ctx),
  ]
    .filter(notRefused)
    .sort();
  // Cloud credentials a proxy cannot obtain drop the AI provider edge rather than refuse the route.
  const unservable = Object.entries(unservableCloudAuth(spec.backend?.auth ?? {}))
    .map(([field, why]) => `backend.auth.${field}: ${why}`)
    .sort();
  const edgeAuth = Object.entries(unenforcedEdgeAuth(spec.backend?.auth ?? {}, authTargets(store, ns, spec)))
    .map(([field, why]) => `backend.auth.${field}: ${why}`)
    .filter(notRefused)
    .sort();
  const noBackend = 'a route with no other backend answers 500 no_backend';
  const enforcedText = [
    ...(unenforced.length ? [`${unenforced.join('; ')}; the routes it reaches refuse their requests with 503`] : []),
    ...(unservable.length
      ? [
          `${unservable.join('; ')}; the AI providers it reaches are left out (a route with no other provider answers 500 no_backend)`,
        ]
      : []),
    ...(edgeAuth.length ? [`${edgeAuth.join('; ')}; the backend edges it reaches are left out (${noBackend})`] : []),
  ].join('; ');
  return {
    invalidText,
    enforcedText,
    refusals,
    guardrails,
    celWarnings: authorizationCelWarningLines(spec),
    keyDuplicates: apiKeyDuplicates(spec.traffic ?? {}, namespaceSecretReader(ctx, ns)),
  };
}

/** The objects a policy's targetRefs name, as the backend.auth check needs them (a GwBackend valid or not). */
function authTargets(store: Store, ns: string, spec: GwPolicySpec): EdgeAuthTarget[] {
  return (spec.targetRefs ?? []).flatMap((t) => {
    const kind = refKind(t.group, t.kind, 'Gateway');
    const o = kind && getObject(store, kind, nameKey(ns, t.name));
    if (!o || !kind) return [];
    const type = kind === 'GwBackend' ? uncheckedBackendSpec(o.obj.spec).type : undefined;
    return [{ kind, name: o.key, ...(type ? { backendType: type } : {}) }];
  });
}

/** The conditions of one ancestor: Accepted, Attached, and Conflicted, Enforced, ResolvedRefs when they apply. */
function ancestorStatus(
  e: StoredObject,
  a: Ancestor,
  pieces: readonly StatusPiece[],
  problemText: string,
  texts: PolicyTexts,
  options: TranslateOptions,
): AncestorStatus {
  const gen = e.obj.metadata.generation ?? 0;
  const now = options.now;
  const { attachedTo, inEffect, unserved } = throughGateways(a, pieces);
  const attachable = !problemText && !a.problem;
  const accepted = attachable && !texts.invalidText;
  // Issue 31: invalid, but it sets security fields: it stays attached and what it targets refuses traffic.
  const closing = problemText && attachedTo.length ? invalidObjectRefusals('GwPolicy', e).map(closedFieldName) : [];
  const closes = closing.length
    ? `; it sets ${closing.join(', ')}, so the routes, listeners and backends it targets refuse traffic (503 policy_not_enforced; networkAuthorization closes connections) until it is fixed`
    : '';
  const conds: Condition[] = [
    condition(
      'Accepted',
      accepted,
      problemText || texts.invalidText ? 'Invalid' : (a.problem?.reason ?? 'Accepted'),
      (problemText && problemText + closes) || a.problem?.message || texts.invalidText || 'the policy is accepted',
      gen,
      now,
    ),
    condition(
      'Attached',
      (attachable || closing.length > 0) && attachedTo.length > 0,
      (attachable || closing.length > 0) && attachedTo.length > 0 ? 'Attached' : 'NotAttached',
      closing.length
        ? `invalid: refusing the traffic of its targets through Gateway ${gatewayList(attachedTo)}`
        : !attachable
          ? 'the policy is not accepted for this target'
          : attachedTo.length
            ? attachedMessage(inEffect, unserved)
            : `no Gateway of controller ${options.controllerName} serves this target`,
      gen,
      now,
    ),
  ];
  const conflicted = conflictCondition(a, pieces, gen, now);
  if (conflicted) conds.push(conflicted);
  // Present only when something is wrong: the policy still takes effect, but the proxies fail closed.
  const enforced = attachable
    ? enforcedCondition(
        refusalText(texts.refusals),
        [texts.enforcedText, unservedText(unserved)].filter(Boolean).join('; '),
        gen,
        now,
      )
    : undefined;
  if (enforced) conds.push(enforced);
  const canMatch = attachable ? rulesCanMatchCondition(texts.celWarnings, gen, now) : undefined;
  if (canMatch) conds.push(canMatch);
  // A key found twice is kept once when both say the same, else refused: never one picked silently.
  if (attachable && texts.keyDuplicates)
    conds.push(condition('ApiKeysUnique', false, 'DuplicateKey', texts.keyDuplicates, gen, now));
  const refs = texts.guardrails.refs;
  if (attachable && refs.length) {
    const message = `${refs.map((r) => r.message).join('; ')}; the MCP methods those processors guard are refused`;
    conds.push(condition('ResolvedRefs', false, refs[0]?.reason ?? 'BackendNotFound', message, gen, now));
  }
  return { ancestorRef: a.ref, controllerName: options.controllerName, conditions: conds };
}

/**
 * The Gateways the policy reaches this target through, split into those that serve what it sets and those
 * whose proxy has no workload identity for its `backend.tls.certificateSource: SPIFFE` (issue 38).
 */
function throughGateways(
  a: Ancestor,
  pieces: readonly StatusPiece[],
): { attachedTo: string[]; inEffect: string[]; unserved: string[] } {
  const attachedTo = [
    ...new Set(
      pieces.flatMap((p) => (p.kind === 'policyAttached' && p.targetIndex === a.targetIndex ? [p.gateway] : [])),
    ),
  ].sort();
  const noIdentity = new Set(
    pieces.flatMap((p) => (p.kind === 'identityMissing' && p.targetIndex === a.targetIndex ? [p.gateway] : [])),
  );
  return {
    attachedTo,
    inEffect: attachedTo.filter((g) => !noIdentity.has(g)),
    unserved: attachedTo.filter((g) => noIdentity.has(g)),
  };
}

function attachedMessage(inEffect: readonly string[], unserved: readonly string[]): string {
  return [
    ...(inEffect.length ? [`in effect through Gateway ${gatewayList(inEffect)}`] : []),
    ...(unserved.length
      ? [`through Gateway ${gatewayList(unserved)} the backend edges it reaches are left out (see Enforced)`]
      : []),
  ].join('; ');
}

/** One sentence for all the Gateways that leave its edges out, named up to NAMED_GATEWAYS (gateway-identity.ts). */
const unservedText = (gateways: readonly string[]): string =>
  gateways.length
    ? `${identityMissingText('spec.backend.tls.certificateSource: SPIFFE', gateways)}, so the backend edges it reaches through ${gateways.length > 1 ? 'those Gateways' : 'that Gateway'} are left out (their routes say ResolvedRefs=False, InvalidBackendTLS)`
    : '';

function conflictCondition(
  a: Ancestor,
  pieces: readonly StatusPiece[],
  gen: number,
  now: string,
): Condition | undefined {
  const conflicts = pieces.flatMap((p) =>
    p.kind === 'policyConflict' && p.conflict.targetIndex === a.targetIndex ? [p.conflict] : [],
  );
  if (!conflicts.length) return undefined;
  const fields = [
    ...new Set(conflicts.map((c) => `${c.field} (kept from ${c.winner}, older at level ${c.level})`)),
  ].sort();
  const message = `another policy at the same level sets the same field: ${fields.join('; ')}`;
  return condition('Conflicted', true, 'Conflicted', message, gen, now);
}

/**
 * Prompt-guard steps no proxy can run as written (cloud-vendor guards, invalid patterns). A webhook whose
 * Service is missing is a reference problem, reported on the routes (ResolvedRefs) where it is resolved.
 */
function unenforceableGuards(spec: GwPolicySpec, source: string, ctx: ReturnType<typeof newCtx>): string[] {
  const guard = spec.backend?.ai?.promptGuard;
  if (!guard) return [];
  const ir = translatePromptGuard(guard, source, promptGuardLookup(ctx));
  return [...ir.request, ...ir.response].flatMap((s) =>
    s.kind === 'unsupported' && s.unsupported && s.unsupported.kind !== 'webhook'
      ? [(s.unsupported.reason ?? '').replace(`${source} `, '')]
      : [],
  );
}

/**
 * Whether a `traffic.x: sub.field: why` line says what a refusal already says: its field, or its field
 * with the sub-path, is a refused path or lies inside or around one.
 */
function sameAsRefusal(refusals: readonly FieldRefusal[], line: string): boolean {
  const m = /^([^\s:]+)(?::\s+([\w.[\]]+):)?/.exec(line);
  if (!m) return false;
  const field = `spec.${m[1] ?? ''}`;
  const sub = m[2] ? `${field}.${m[2]}` : undefined;
  return (
    isRefused(refusals, field) ||
    (sub !== undefined && (isRefused(refusals, sub) || refusals.some((r) => r.field.startsWith(`${sub}.`))))
  );
}

/** Whether `path` is a refused field or lies inside one. */
function isRefused(refusals: readonly FieldRefusal[], path: string): boolean {
  return refusals.some((r) => path === r.field || path.startsWith(`${r.field}.`) || path.startsWith(`${r.field}[`));
}

/** sectionName and port as the policy wrote them. */
function section(t: UncheckedTarget): Pick<AncestorRef, 'sectionName' | 'port'> {
  const { sectionName, port } = t.written;
  return { ...(sectionName !== undefined ? { sectionName } : {}), ...(port !== undefined ? { port } : {}) };
}

function targetProblem(
  store: Store,
  spec: GwPolicySpec,
  kind: Kind | undefined,
  target: StoredObject | undefined,
  t: UncheckedTarget,
  options: TranslateOptions,
): Ancestor['problem'] {
  if (!kind) return { reason: 'Invalid', message: `target kind ${t.group ?? ''}/${t.kind ?? ''} is not supported` };
  if (!target)
    return {
      reason: 'TargetNotFound',
      message: `${kind} ${nameKey(undefined, t.name ?? '')} does not exist in the policy's namespace`,
    };
  const bad = attachmentProblem(spec, kind, t);
  if (bad) return { reason: 'Invalid', message: bad };
  const sectionName = t.sectionName;
  if (sectionName !== undefined && !sectionExists(target, sectionName)) {
    return { reason: 'TargetNotFound', message: `${kind} ${target.key} has no section ${sectionName}` };
  }
  if (kind === 'Gateway' && !isOurClass(newCtx(store, options), gatewaySpec(target).gatewayClassName ?? '')) {
    return {
      reason: 'TargetNotFound',
      message: `Gateway ${target.key} is not of a GatewayClass of controller ${options.controllerName}`,
    };
  }
  return undefined;
}

/** sectionName names a listener, a route rule, a Service port or a GwBackend sub-backend. */
function sectionExists(target: StoredObject, name: string): boolean {
  switch (target.kind) {
    case 'Gateway':
      return (gatewaySpec(target).listeners ?? []).some((l) => l.name === name);
    case 'ListenerSet':
      return (listenerSetSpec(target).listeners ?? []).some((l) => l.name === name);
    case 'HTTPRoute':
    case 'GRPCRoute':
      return (routeSpec(target).rules ?? []).some((r) => r.name === name);
    case 'Service':
      return (serviceSpec(target).ports ?? []).some((p) => String(p.written.port) === name);
    case 'GwBackend':
      return uncheckedBackendSpec(target.obj.spec).sections.includes(name);
    default:
      return false;
  }
}
