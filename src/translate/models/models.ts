// GwModel → IR Model: which requests a model serves (match, visibility), where they go (a provider or
// virtual routing over other models) and which listeners or routes expose it.
import { aiProviderSettings, fieldTransformations } from '../backends/backend-ai.js';
import { modelAuth, type ModelAuth } from './model-auth.js';
import { promptGuardLookup, promptGuardRefProblems, translatePromptGuard } from '../backends/prompt-guard.js';
import { modelBackend, type ModelBackend } from './model-backend.js';
import { inferencePoolPiece } from './inference-pool-status.js';
import { modelConnection, type ModelConnection } from './model-connection.js';
import { DEFAULT_BASE, MODEL_KINDS, SETTINGS_KEY, modelRefusals, settingsOf } from './model-refusals.js';

/** For the status writer: the GwModel fields the proxy refuses (one RefusalInput per field path). */
export { modelRefusals } from './model-refusals.js';
import { condition, type StatusPiece } from '../status/conditions.js';
import type { GwModelSpec, ModelPolicies, VirtualModel } from '../../api/index.js';
import { lookup, read, readAny, type Ctx } from '../objects/context.js';
import { routeSpec, type ParentReference } from '../objects/gateway-api.js';
import { gwSpec } from '../objects/gw-objects.js';
import { uncheckedModelSpec } from '../objects/gw-unchecked.js';
import type { IrRefusal } from '../../coverage/effective.js';
import { closedFieldName, invalidObjectRefusals } from '../policies/invalid-objects.js';
import { toAuthorization } from '../policies/ir-policy.js';
import { headerModifier } from '../policies/ir-traffic.js';
import { outlierDetection } from '../backends/backend-health.js';
import type { ModelInput, ModelProviderInput, ModelTargetInput, PromptGuardInput, RouteInput } from '../../ir/types.js';
import type { Named } from '../built-ir.js';
import type { ListenerInfo } from '../listeners/listeners.js';
import { stableStringify } from '../objects/read.js';
import { refKind } from '../objects/store.js';
import { GROUP, nameKey, objectKey, type StoredObject } from '../objects/types.js';

export function modelMatch(pattern: string): ModelInput['match'] {
  if (pattern === '*') return { any: true };
  if (pattern.endsWith('*')) return { prefix: pattern.slice(0, -1) };
  if (pattern.startsWith('*')) return { suffix: pattern.slice(1) };
  return { exact: pattern };
}

export function modelName(key: string): string {
  return `GwModel/${key}`;
}

/** GwModels attached to this gateway, its ListenerSets or routes it serves. */
export function translateModels(
  ctx: Ctx,
  gw: StoredObject,
  listeners: ListenerInfo[],
  routes: Named<RouteInput>[],
  piece: (objKey: string, p: StatusPiece) => void,
): ModelInput[] {
  const parents = new Set<string>([objectKey('Gateway', gw.key)]);
  for (const l of listeners) if (l.owner.kind === 'ListenerSet') parents.add(objectKey('ListenerSet', l.owner.key));
  const routeKeys = new Set(routes.map((r) => r.name.split('/').slice(0, 3).join('/')));
  for (const rk of routeKeys) parents.add(rk);
  const modelKeys = new Set<string>();
  for (const p of [...parents].sort()) for (const m of lookup(ctx, 'modelsByParent', p)) modelKeys.add(m);
  const out: ModelInput[] = [];
  for (const mk of [...modelKeys].sort()) {
    const m = readAny(ctx, 'GwModel', mk);
    if (!m) continue;
    const model = translateModel(ctx, gw, m, listeners, routes, piece);
    if (model) out.push(model);
  }
  return out;
}

function translateModel(
  ctx: Ctx,
  gw: StoredObject,
  m: StoredObject,
  listeners: ListenerInfo[],
  routes: Named<RouteInput>[],
  piece: (objKey: string, p: StatusPiece) => void,
): ModelInput | undefined {
  // An invalid GwModel still reports on its parents (Accepted=False); nothing else of it is read.
  const spec = gwSpec('GwModel', m);
  const ns = m.obj.metadata.namespace ?? '';
  const gen = m.obj.metadata.generation ?? 0;
  const now = ctx.options.now;
  const { credential, guard, backend, connection, resolvedProblem, unresolvedReason } = resolveModelRefs(
    ctx,
    m,
    ns,
    spec,
  );
  const parentNames: string[] = [];
  const onGateway = { seen: false, attached: false, why: '' };
  // Invalid but setting security fields: served as a model that refuses every request (issue 31).
  const closed = invalidObjectRefusals('GwModel', m);
  (uncheckedModelSpec(m.obj.spec).parentRefs ?? []).forEach((ref) => {
    const kind = refKind(ref.group, ref.kind, 'Gateway');
    const key = nameKey(ref.namespace ?? ns, ref.name ?? '');
    const target = parentTarget(ctx, gw, kind, key, ref, listeners, routes);
    if (!target) return;
    const { names, why } = target;
    const ok = m.problems.length === 0 && why === '' && names.length > 0;
    onGateway.seen = true;
    onGateway.attached ||= ok;
    onGateway.why ||= why;
    const closes = closed.length
      ? `; it sets ${closed.map(closedFieldName).join(', ')}, so requests for this model answer 503 policy_not_enforced until it is fixed`
      : '';
    const invalid = m.problems.length ? m.problems.map((p) => `${p.path}: ${p.message}`).join('; ') + closes : '';
    piece(objectKey('GwModel', m.key), {
      kind: 'parent',
      parent: {
        parentRef: {
          group: ref.group ?? GROUP.gateway,
          kind: ref.kind ?? 'Gateway',
          namespace: ref.namespace ?? ns,
          name: ref.name ?? '',
          ...(ref.written.sectionName !== undefined ? { sectionName: ref.written.sectionName } : {}),
        },
        controllerName: ctx.options.controllerName,
        conditions: [
          condition(
            'Accepted',
            ok,
            ok ? 'Accepted' : invalid ? 'Invalid' : 'NotAllowedByParent',
            ok ? 'model is attached' : invalid || why || 'the parent has no programmed listener',
            gen,
            now,
          ),
          condition(
            'ResolvedRefs',
            !resolvedProblem,
            resolvedProblem ? unresolvedReason : 'ResolvedRefs',
            resolvedProblem ?? resolvedMessage(backend),
            gen,
            now,
          ),
        ],
      },
    });
    if (ok || (closed.length > 0 && why === '')) parentNames.push(...names);
  });
  const pool = onGateway.seen ? inferencePoolPiece(ctx, gw, m, spec, backend, onGateway) : undefined;
  if (pool) piece(...pool);
  if (parentNames.length === 0) return undefined;
  if (!spec) return closed.length ? closedModel(m, parentNames, closed) : undefined;
  return validModel(m, spec, parentNames, credential, guard, { backend, connection });
}

/** What a GwModel refers to (credential, guard steps, backendRef), and the first that does not resolve, for ResolvedRefs. */
function resolveModelRefs(ctx: Ctx, m: StoredObject, ns: string, spec: GwModelSpec | undefined) {
  const credential = spec?.provider !== undefined ? modelAuth(ctx, m.key, ns, spec) : undefined;
  const missingModel = spec ? refProblem(ctx, ns, spec) : undefined;
  const guardSpec = spec?.provider !== undefined ? spec.policies?.promptGuard : undefined;
  const guard = guardSpec
    ? translatePromptGuard(guardSpec, `GwModel ${m.key}`, promptGuardLookup(ctx), 'spec.policies.promptGuard')
    : undefined;
  // A guard step whose reference or key did not resolve refuses the model (503); the status says which.
  const guardProblem = guard ? promptGuardRefProblems([{ backend: '', promptGuard: guard }])[0] : undefined;
  const backend = spec?.provider !== undefined ? modelBackend(ctx, ns, spec) : undefined;
  const backendProblem = backend && 'problem' in backend ? backend.problem : undefined;
  const connection = spec?.provider !== undefined ? modelConnection(ctx, m.key, spec) : undefined;
  const connectionProblem = typeof connection === 'string' ? connection : undefined;
  const resolvedProblem =
    missingModel ??
    backendProblem ??
    connectionProblem ??
    (typeof credential === 'string' ? credential : undefined) ??
    guardProblem?.message;
  const unresolvedReason = missingModel
    ? 'ModelNotFound'
    : backendProblem
      ? 'BackendNotFound'
      : connectionProblem
        ? connectionProblem.startsWith('spec.policies.tunnel')
          ? 'InvalidBackendTunnel'
          : 'InvalidBackendTLS'
        : typeof credential === 'string'
          ? 'InvalidBackendAuth'
          : (guardProblem?.reason ?? 'InvalidBackendAuth');
  return { credential, guard, backend, connection, resolvedProblem, unresolvedReason };
}

/** The IR Model of a valid GwModel exposed on `parents`: match, target, refusals and its own authorization. */
function validModel(
  m: StoredObject,
  spec: GwModelSpec,
  parents: string[],
  credential: ModelAuth | string | undefined,
  promptGuard: PromptGuardInput | undefined,
  target: { backend: ModelBackend | undefined; connection: ModelConnection | string | undefined },
): ModelInput {
  const out: ModelInput = {
    name: modelName(m.key),
    parents: [...new Set(parents)].sort(),
    match: modelMatch(spec.match?.model ?? m.obj.metadata.name),
    visibility: spec.visibility === 'Internal' ? 'INTERNAL' : 'PUBLIC',
  };
  if (spec.provider !== undefined) out.provider = modelProvider(spec, credential, target);
  const health = spec.policies?.health;
  if (out.provider && health) out.provider.health = outlierDetection(health, `GwModel ${m.key}`);
  const refusals = modelRefusals(m);
  if (refusals.length > 0) out.refusals = refusals;
  const authorization = spec.policies?.authorization;
  if (authorization) out.authorization = toAuthorization(authorization);
  if (promptGuard) out.promptGuard = promptGuard;
  if (spec.virtualModel) out.routing = routing(m.obj.metadata.namespace ?? '', spec.virtualModel);
  return out;
}

/** An invalid GwModel that sets security fields: matched as it asks, answered 503 policy_not_enforced. */
function closedModel(m: StoredObject, parents: string[], refusals: IrRefusal[]): ModelInput {
  const match = uncheckedModelSpec(m.obj.spec).match ?? m.obj.metadata.name;
  return {
    name: modelName(m.key),
    parents: [...new Set(parents)].sort(),
    match: modelMatch(match),
    visibility: 'PUBLIC',
    refusals,
  };
}

/**
 * The IR listener or route names one GwModel parentRef exposes it on, and why not when it cannot be;
 * undefined when the parentRef is not about this Gateway.
 */
function parentTarget(
  ctx: Ctx,
  gw: StoredObject,
  kind: string | undefined,
  key: string,
  ref: ParentReference,
  listeners: ListenerInfo[],
  routes: Named<RouteInput>[],
): { names: string[]; why: string } | undefined {
  if (kind === 'Gateway' && key === gw.key)
    return { names: listeners.filter((l) => l.owner.kind === 'Gateway' && l.programmed).map((l) => l.irName), why: '' };
  if (kind === 'ListenerSet') {
    const own = listeners.filter((l) => l.owner.kind === 'ListenerSet' && l.owner.key === key);
    if (own.length === 0) return undefined;
    return { names: own.filter((l) => l.programmed).map((l) => l.irName), why: '' };
  }
  if (kind === 'HTTPRoute') {
    const base = `HTTPRoute/${key}/`;
    const mine = routes.filter((r) => r.name.startsWith(base));
    if (mine.length === 0) return undefined;
    const section = ref.sectionName;
    const picked =
      section === undefined
        ? ruleCount(ctx, key) === 1
          ? mine
          : []
        : mine.filter((r) => r.name.slice(base.length).split('@')[0] === section);
    let why = '';
    if (picked.length === 0)
      why =
        section === undefined
          ? 'the HTTPRoute has several rules; set sectionName to pick one'
          : `the HTTPRoute has no rule named ${section}`;
    else if (picked.some((r) => (r.routeMatches ?? []).some((x) => x.path?.kind !== 'prefix')))
      why = 'the route rule must use PathPrefix matches only';
    return { names: picked.map((r) => r.name), why };
  }
  return undefined;
}

/** `spec.provider` and its settings as the IR ModelProvider: kind, base URL (or the vendor's), typed settings, credential. */
function modelProvider(
  spec: GwModelSpec,
  credential: ModelAuth | string | undefined,
  { backend, connection }: { backend: ModelBackend | undefined; connection: ModelConnection | string | undefined },
): ModelProviderInput {
  const policies: ModelPolicies = spec.policies ?? {};
  const auth = policies.auth;
  // Inline keys travel once, as the credential, not again inside policiesJson.
  const inline = auth?.key !== undefined || (auth?.credentials ?? []).some((c) => c.key !== undefined);
  const shown = auth && inline && typeof credential === 'object' ? { ...policies, auth: withoutKey(auth) } : policies;
  const provider = spec.provider ?? '';
  const out: ModelProviderInput = {
    provider,
    baseUrl: spec.baseURL ?? DEFAULT_BASE[provider] ?? '',
    kind: MODEL_KINDS[provider] ?? '',
    settings: aiProviderSettings(spec[SETTINGS_KEY[provider] ?? 'custom'] ?? {}),
    // Provenance for `gw explain` only: no proxy code reads these (issue 14).
    settingsJson: stableStringify(settingsOf(spec)),
    policiesJson: stableStringify(shown),
  };
  // TLS or a tunnel that cannot be built: never called without them (503 no_backend), like a missing backendRef.
  if (typeof connection === 'string') out.backendProblem = connection;
  else if (connection) Object.assign(out, connection);
  if (backend && 'problem' in backend) out.backendProblem = backend.problem;
  else if (backend) {
    out.baseUrl = backend.baseUrl;
    if (backend.inferencePool) out.inferencePool = backend.inferencePool;
  }
  if (policies.headers) out.requestHeaders = headerModifier(policies.headers);
  const transformations = fieldTransformations(policies.transformations);
  const finalTransformations = fieldTransformations(policies.finalTransformations);
  if (transformations.length > 0) out.transformations = transformations;
  if (finalTransformations.length > 0) out.finalTransformations = finalTransformations;
  if (typeof credential === 'object') {
    if (credential.credential) out.credential = credential.credential;
    if (credential.location) out.credentialLocation = credential.location;
    if (credential.extra.length > 0) out.extraCredentials = credential.extra;
  } else if (typeof credential === 'string') out.credentialProblem = credential;
  else {
    const named = (['secretRef', 'aws', 'azure', 'gcp'] as const).find((k) => auth?.[k] !== undefined);
    if (named) out.credentialProblem = `spec.policies.auth.${named}: the credential could not be resolved`;
  }
  return out;
}

/** `auth` without its inline keys (`key`, `credentials[].key`): they travel once, as the credential. */
function withoutKey<T extends { key?: string; credentials?: { key?: string }[] }>(auth: T): Omit<T, 'key'> {
  const { key: _key, ...rest } = auth;
  if (rest.credentials) rest.credentials = rest.credentials.map(({ key: _k, ...c }) => c);
  return rest;
}

function ruleCount(ctx: Ctx, key: string): number {
  const route = read(ctx, 'HTTPRoute', key);
  return route ? (routeSpec(route).rules ?? []).length : 0;
}

/** What every routing strategy's target has: the GwModel it names and the model name to ask it for. */
type ModelTarget = Pick<NonNullable<VirtualModel['weighted']>['targets'][number], 'modelRef' | 'model'>;

function routing(ns: string, vm: VirtualModel): ModelInput['routing'] {
  const target = (t: ModelTarget, extra: Partial<ModelTargetInput>): ModelTargetInput => ({
    model: modelName(`${ns}/${t.modelRef.name}`),
    modelName: t.model ?? '',
    priority: 0,
    when: '',
    weight: 0,
    ...extra,
  });
  const { failover, conditional, weighted } = vm;
  if (failover) {
    const targets = failover.targets.map((t) => target(t, { priority: t.priority }));
    // Stable: equal priorities keep their written order; the proxy scores them by health at run time.
    return {
      kind: 'FAILOVER',
      targets: targets
        .map((t, i) => [t, i] as const)
        .sort((a, b) => (a[0].priority ?? 0) - (b[0].priority ?? 0) || a[1] - b[1])
        .map(([t]) => t),
    };
  }
  if (conditional)
    return {
      kind: 'CONDITIONAL',
      targets: conditional.targets.map((t) => target(t, { when: t.when ?? '' })),
    };
  return { kind: 'WEIGHTED', targets: (weighted?.targets ?? []).map((t) => target(t, { weight: t.weight ?? 1 })) };
}

/** ResolvedRefs=True's message; for a pool, how many ready endpoints it has (0 means requests answer 503). */
function resolvedMessage(backend: ModelBackend | undefined): string {
  const pool = backend && 'inferencePool' in backend ? backend.inferencePool : undefined;
  if (!pool) return 'all references resolved';
  const n = pool.endpoints?.length ?? 0;
  return `all references resolved; ${pool.name} has ${n} ready endpoint${n === 1 ? '' : 's'}`;
}

/** A virtual model's targets must name existing GwModels in its namespace. */
function refProblem(ctx: Ctx, ns: string, spec: GwModelSpec): string | undefined {
  const vm = spec.virtualModel;
  if (!vm) return undefined;
  const targets: readonly ModelTarget[] = (vm.failover ?? vm.conditional ?? vm.weighted)?.targets ?? [];
  for (const t of targets) {
    const name = t.modelRef.name;
    if (!read(ctx, 'GwModel', `${ns}/${name}`)) return `modelRef GwModel ${ns}/${name} does not exist or is invalid`;
  }
  return undefined;
}
