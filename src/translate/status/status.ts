// Assembles the status of one object from the pieces every gateway translation contributed plus what
// can be said about the object alone (validity, target resolution). Pure and per object, so a change
// recomputes only the statuses it can touch.
import { condition, enforcedCondition, type Condition, type ParentStatus, type StatusPiece } from './conditions.js';
import { refusalsOf, refusalText, type FieldRefusal } from '../../coverage/index.js';
import { modelRefusals } from '../models/model-refusals.js';
import { newCtx, type TranslateOptions } from '../objects/context.js';
import { translateGwBackend } from '../backends/backends.js';
import { extAuthCelProblems } from '../policies/ext-auth.js';
import { unenforceableAuth } from '../policies/ir-policy.js';
import { unservableCloudAuth } from '../backends/cloud-credentials.js';
import { unenforcedEdgeAuth } from '../backends/backend-auth.js';
import { policyGuardrailProblems } from '../backends/mcp-guardrails.js';
import { namespaceSecretReader } from '../policies/policy-secrets.js';
import { promptGuardLookup, translatePromptGuard } from '../backends/prompt-guard.js';
import { attachmentProblem } from '../policies/policy-targets.js';
import { rec, recs, selectorMatches, stableStringify, str, type Rec } from '../objects/read.js';
import { getObject, listObjects, refKind, type Store } from '../objects/store.js';
import { GROUP, nameKey, namespaceOf, splitObjectKey, type Kind, type StoredObject } from '../objects/types.js';
import { backendTlsPolicyConditions } from '../backends/backend-tls-policy.js';
import { isOurClass } from '../translate.js';

export const MAX_BACKEND_CONDITIONS = 8;
export const MAX_MODEL_PARENTS = 16;
export const MAX_POLICY_ANCESTORS = 16;

export type ObjectStatus = Record<string, unknown>;

/** The status to write for an object, or undefined when this controller has nothing to say about it. */
export function objectStatus(
  store: Store,
  objKey: string,
  pieces: readonly StatusPiece[],
  options: TranslateOptions,
): ObjectStatus | undefined {
  const k = splitObjectKey(objKey);
  const e = k && getObject(store, k.kind, k.key);
  if (!k || !e) return undefined;
  const gen = e.obj.metadata.generation ?? 0;
  const now = options.now;
  const problemText = e.problems.map((p) => `${p.path}: ${p.message}`).join('; ');
  switch (k.kind) {
    case 'GatewayClass': {
      if (str(rec(e.obj.spec)?.controllerName) !== options.controllerName) return undefined;
      return {
        conditions: [
          condition(
            'Accepted',
            !problemText,
            problemText ? 'InvalidParameters' : 'Accepted',
            problemText || 'the GatewayClass is accepted',
            gen,
            now,
          ),
        ],
      };
    }
    case 'Gateway':
    case 'ListenerSet': {
      const p = pieces.find((x) => x.kind === 'gateway' || x.kind === 'listenerSet');
      return p && (p.kind === 'gateway' || p.kind === 'listenerSet') ? { ...p.status } : undefined;
    }
    case 'HTTPRoute':
    case 'GRPCRoute': {
      const parents = parentsOf(pieces);
      return parents.length ? { parents } : undefined;
    }
    case 'GwModel': {
      // The same list the IR Model carries (model-refusals.ts): the status and the proxy never disagree.
      const refused = enforcedCondition(refusalText(modelRefusals(e)), '', gen, now);
      const parents = parentsOf(pieces).slice(0, MAX_MODEL_PARENTS);
      return { parents: refused ? parents.map((p) => ({ ...p, conditions: [...p.conditions, refused] })) : parents };
    }
    case 'GwBackend':
      return { conditions: backendConditions(store, e, problemText, options).slice(0, MAX_BACKEND_CONDITIONS) };
    case 'GwParameters':
      return parametersStatus(e, problemText, gen, now);
    case 'GwPolicy':
      return { ancestors: policyAncestors(store, e, pieces, problemText, options).slice(0, MAX_POLICY_ANCESTORS) };
    case 'BackendTLSPolicy':
      return backendTlsPolicyStatus(store, e, pieces, options);
    default:
      return undefined;
  }
}

function parametersStatus(e: StoredObject, problemText: string, gen: number, now: string): ObjectStatus {
  const refused = problemText
    ? undefined
    : enforcedCondition(refusalText(refusalsOf('GwParameters', e.obj.spec)), '', gen, now);
  return {
    conditions: [
      condition(
        'Accepted',
        !problemText,
        problemText ? 'Invalid' : 'Accepted',
        problemText || 'parameters are valid',
        gen,
        now,
      ),
      ...(refused ? [refused] : []),
    ],
  };
}

function backendTlsPolicyStatus(
  store: Store,
  e: StoredObject,
  pieces: readonly StatusPiece[],
  options: TranslateOptions,
): ObjectStatus | undefined {
  // Ancestors are the Gateways of ours whose routes reach a selected Service; none: nothing to say.
  const gateways = [...new Set(pieces.flatMap((p) => (p.kind === 'backendTlsPolicy' ? [p.gateway] : [])))]
    .sort()
    .slice(0, MAX_POLICY_ANCESTORS);
  if (gateways.length === 0) return undefined;
  const conditions = backendTlsPolicyConditions(newCtx(store, options), e);
  return {
    ancestors: gateways.map((g) => ({
      ancestorRef: {
        group: GROUP.gateway,
        kind: 'Gateway',
        namespace: namespaceOf(g),
        name: g.slice(g.indexOf('/') + 1),
      },
      controllerName: options.controllerName,
      conditions,
    })),
  };
}

function parentsOf(pieces: readonly StatusPiece[]): ParentStatus[] {
  return pieces
    .flatMap((p) => (p.kind === 'parent' ? [[stableStringify(p.parent.parentRef), p.parent] as const] : []))
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([, p]) => p);
}

function backendConditions(store: Store, e: StoredObject, problemText: string, options: TranslateOptions): Condition[] {
  const gen = e.obj.metadata.generation ?? 0;
  const now = options.now;
  if (problemText) return [condition('Accepted', false, 'Invalid', problemText, gen, now)];
  const { refProblems } = translateGwBackend(newCtx(store, options), e.key, rec(e.obj.spec) ?? {});
  const refused = enforcedCondition(
    refusalText([...refusalsOf('GwBackend', e.obj.spec), ...ownHttpVersionRefusals(rec(e.obj.spec) ?? {})]),
    '',
    gen,
    now,
  );
  return [
    condition('Accepted', true, 'Accepted', 'the backend is valid', gen, now),
    condition(
      'ResolvedRefs',
      refProblems.length === 0,
      refProblems.length ? 'RefNotFound' : 'ResolvedRefs',
      refProblems.join('; ') || 'all references resolved',
      gen,
      now,
    ),
    ...(refused ? [refused] : []),
  ];
}

interface Ancestor {
  ref: Rec;
  targetIndex: number;
  /** Why the policy cannot take effect on this ancestor, if it cannot. */
  problem?: { reason: string; message: string };
}

function policyAncestors(
  store: Store,
  e: StoredObject,
  pieces: readonly StatusPiece[],
  problemText: string,
  options: TranslateOptions,
): Rec[] {
  const spec = rec(e.obj.spec) ?? {};
  const texts = policyTexts(store, e, spec, pieces, options);
  return policyTargets(store, e, spec, options).map((a) => ancestorStatus(e, a, pieces, problemText, texts, options));
}

/** One ancestor per targetRef, and one per object each targetSelector matches (or one saying none does). */
function policyTargets(store: Store, e: StoredObject, spec: Rec, options: TranslateOptions): Ancestor[] {
  const ns = e.obj.metadata.namespace ?? '';
  const ancestors: Ancestor[] = [];
  recs(spec.targetRefs).forEach((t, i) => {
    const kind = refKind(str(t.group), str(t.kind), 'Gateway');
    const ref = {
      group: str(t.group) ?? '',
      kind: str(t.kind) ?? '',
      namespace: ns,
      name: str(t.name) ?? '',
      ...section(t),
    };
    const target = kind && getObject(store, kind, nameKey(ns, ref.name));
    ancestors.push({ ref, targetIndex: i, problem: targetProblem(store, spec, kind, target, t, options) });
  });
  recs(spec.targetSelectors).forEach((t, i) => {
    const kind = refKind(str(t.group), str(t.kind), 'Gateway');
    const matched = kind
      ? listObjects(store, kind).filter(
          (o) =>
            o.obj.metadata.namespace === ns && selectorMatches({ matchLabels: t.matchLabels }, o.obj.metadata.labels),
        )
      : [];
    const ref = (name: string) => ({
      group: str(t.group) ?? '',
      kind: str(t.kind) ?? '',
      namespace: ns,
      name,
      ...section(t),
    });
    if (matched.length === 0) {
      const message = `no ${str(t.kind) ?? 'object'} in namespace ${ns} matches the labels`;
      ancestors.push({ ref: ref(''), targetIndex: i, problem: { reason: 'TargetNotFound', message } });
    }
    for (const o of matched.sort((a, b) => (a.key < b.key ? -1 : 1))) {
      const problem = targetProblem(store, spec, kind, o, t, options);
      ancestors.push({ ref: ref(o.obj.metadata.name), targetIndex: i, problem });
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
}

function policyTexts(
  store: Store,
  e: StoredObject,
  spec: Rec,
  pieces: readonly StatusPiece[],
  options: TranslateOptions,
): PolicyTexts {
  const ns = e.obj.metadata.namespace ?? '';
  const ctx = newCtx(store, options);
  const extAuth = rec(rec(spec.traffic)?.extAuth);
  const guardrails = policyGuardrailProblems(ctx, e.key, rec(spec.backend) ?? {});
  // Found by compiling, not by the schema: the policy still takes effect (its routes fail closed), so only Accepted says so.
  const celInvalid = extAuth
    ? extAuthCelProblems(extAuth).map((p) => `spec.traffic.extAuth.${p.path}: ${p.message}`)
    : [];
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
    ...refusalsOf('GwPolicy', spec),
    ...[...scoped.values()].sort((a, b) => (a.field < b.field ? -1 : 1)),
  ];
  const notRefused = (line: string): boolean => !sameAsRefusal(refusals, line);
  const unenforced = [
    ...Object.entries(unenforceableAuth(rec(spec.traffic) ?? {}, namespaceSecretReader(ctx, ns))).map(
      ([field, why]) => `traffic.${field}: ${why}`,
    ),
    ...unenforceableGuards(spec, `GwPolicy ${e.key}`, ctx),
  ]
    .filter(notRefused)
    .sort();
  // Cloud credentials a proxy cannot obtain drop the AI provider edge rather than refuse the route.
  const unservable = Object.entries(unservableCloudAuth(rec(rec(spec.backend)?.auth) ?? {}))
    .map(([field, why]) => `backend.auth.${field}: ${why}`)
    .sort();
  const authTargets = recs(spec.targetRefs).flatMap((t) => {
    const kind = refKind(str(t.group), str(t.kind), 'Gateway');
    const o = kind && getObject(store, kind, nameKey(ns, str(t.name) ?? ''));
    const ospec = rec(o && o.obj.spec) ?? {};
    const backendType = (['ai', 'mcp', 'a2a', 'static', 'aws'] as const).find((k) => ospec[k] !== undefined);
    return o && kind ? [{ kind, name: o.key, ...(backendType ? { backendType } : {}) }] : [];
  });
  const edgeAuth = Object.entries(unenforcedEdgeAuth(rec(rec(spec.backend)?.auth) ?? {}, authTargets))
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
  return { invalidText, enforcedText, refusals, guardrails };
}

/** The conditions of one ancestor: Accepted, Attached, and Conflicted, Enforced, ResolvedRefs when they apply. */
function ancestorStatus(
  e: StoredObject,
  a: Ancestor,
  pieces: readonly StatusPiece[],
  problemText: string,
  texts: PolicyTexts,
  options: TranslateOptions,
): Rec {
  const gen = e.obj.metadata.generation ?? 0;
  const now = options.now;
  const attachedTo = [
    ...new Set(
      pieces.flatMap((p) => (p.kind === 'policyAttached' && p.targetIndex === a.targetIndex ? [p.gateway] : [])),
    ),
  ].sort();
  const attachable = !problemText && !a.problem;
  const accepted = attachable && !texts.invalidText;
  const conds: Condition[] = [
    condition(
      'Accepted',
      accepted,
      problemText || texts.invalidText ? 'Invalid' : (a.problem?.reason ?? 'Accepted'),
      problemText || a.problem?.message || texts.invalidText || 'the policy is accepted',
      gen,
      now,
    ),
    condition(
      'Attached',
      attachable && attachedTo.length > 0,
      attachable && attachedTo.length ? 'Attached' : 'NotAttached',
      !attachable
        ? 'the policy is not accepted for this target'
        : attachedTo.length
          ? `in effect through Gateway ${attachedTo.join(', ')}`
          : `no Gateway of controller ${options.controllerName} serves this target`,
      gen,
      now,
    ),
  ];
  const conflicted = conflictCondition(a, pieces, gen, now);
  if (conflicted) conds.push(conflicted);
  // Present only when something is wrong: the policy still takes effect, but the proxies fail closed.
  const enforced = attachable
    ? enforcedCondition(refusalText(texts.refusals), texts.enforcedText, gen, now)
    : undefined;
  if (enforced) conds.push(enforced);
  const refs = texts.guardrails.refs;
  if (attachable && refs.length) {
    const message = `${refs.map((r) => r.message).join('; ')}; the MCP methods those processors guard are refused`;
    conds.push(condition('ResolvedRefs', false, refs[0]?.reason ?? 'BackendNotFound', message, gen, now));
  }
  return { ancestorRef: a.ref, controllerName: options.controllerName, conditions: conds };
}

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
function unenforceableGuards(spec: Rec, source: string, ctx: ReturnType<typeof newCtx>): string[] {
  const guard = rec(rec(rec(spec.backend)?.ai)?.promptGuard);
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

function section(t: Rec): Rec {
  return {
    ...(t.sectionName !== undefined ? { sectionName: t.sectionName } : {}),
    ...(t.port !== undefined ? { port: t.port } : {}),
  };
}

function targetProblem(
  store: Store,
  spec: Rec,
  kind: Kind | undefined,
  target: StoredObject | undefined,
  t: Rec,
  options: TranslateOptions,
): Ancestor['problem'] {
  if (!kind)
    return { reason: 'Invalid', message: `target kind ${str(t.group) ?? ''}/${str(t.kind) ?? ''} is not supported` };
  if (!target)
    return {
      reason: 'TargetNotFound',
      message: `${kind} ${nameKey(undefined, str(t.name) ?? '')} does not exist in the policy's namespace`,
    };
  const bad = attachmentProblem(spec, kind, t);
  if (bad) return { reason: 'Invalid', message: bad };
  const sectionName = str(t.sectionName);
  if (sectionName !== undefined && !sectionExists(target, sectionName)) {
    return { reason: 'TargetNotFound', message: `${kind} ${target.key} has no section ${sectionName}` };
  }
  if (kind === 'Gateway' && !isOurClass(newCtx(store, options), str(rec(target.obj.spec)?.gatewayClassName) ?? '')) {
    return {
      reason: 'TargetNotFound',
      message: `Gateway ${target.key} is not of a GatewayClass of controller ${options.controllerName}`,
    };
  }
  return undefined;
}

/** sectionName names a listener, a route rule, a Service port or a GwBackend sub-backend. */
function sectionExists(target: StoredObject, name: string): boolean {
  const spec = rec(target.obj.spec) ?? {};
  switch (target.kind) {
    case 'Gateway':
    case 'ListenerSet':
      return recs(spec.listeners).some((l) => l.name === name);
    case 'HTTPRoute':
    case 'GRPCRoute':
      return recs(spec.rules).some((r) => r.name === name);
    case 'Service':
      return recs(spec.ports).some((p) => String(p.port) === name);
    case 'GwBackend': {
      const mcp = recs(rec(spec.mcp)?.targets).map((x) => x.name);
      const ai = recs(rec(spec.ai)?.groups).flatMap((g) => recs(g.providers).map((p) => p.name));
      return [...mcp, ...ai].includes(name);
    }
    default:
      return false;
  }
}

/** `policies.http.version` of a GwBackend the HTTP forwarder does not serve (MCP, AI, AgentCore): refused. */
function ownHttpVersionRefusals(spec: Rec): FieldRefusal[] {
  if (str(rec(rec(spec.policies)?.http)?.version) === undefined) return [];
  if (spec.static !== undefined || spec.a2a !== undefined || spec.dynamicForwardProxy !== undefined) return [];
  return [
    {
      field: 'spec.policies.http.version',
      reason: 'the upstream HTTP version is chosen only for HTTP backends (static, a2a, dynamicForwardProxy)',
      security: false,
    },
  ];
}
