// A route whose first weighted backend is `ai`, compiled once per snapshot into what the LLM forwarder
// needs per request: providers by priority group with their endpoint, credential and request shaping.
import type { Backend, BackendRef, Route, Snapshot } from '../../ir/types.js';
import type { Model__Output as Model } from '../../ir/gen/gw/ir/v1/Model.js';
import type { Problem } from '../../problem.js';
import type { AiProviderEdge__Output as AiProviderEdge } from '../../ir/gen/gw/ir/v1/AiProviderEdge.js';
import type { AiRouteType__Output as AiRouteType } from '../../ir/gen/gw/ir/v1/AiRouteType.js';
import { compileCel } from '../policy/cel/env.js';
import { providerTransformations } from './field-transformations.js';
import { providerShaping } from './provider-transformation.js';
import { compileExtAuth } from '../auth/ext-auth.js';
import type { GuardedEdge, LlmGuards } from '../guard/types.js';
import { routeTimeouts, type TrafficPlan } from '../policy/traffic-policy.js';
import { outlierSettings } from '../policy/outlier.js';
import { tlsSettingsProblem } from '../http/upstream-tls.js';
import { MODEL_HEALTH_KEY, modelTableOf, type ModelTable } from './model-routing.js';
import { EMPTY_SETTINGS, vendorEndpoint } from './vendors.js';
import type { ErrorCode } from '../proxy-error.js';

import type { LlmProvider } from './llm-provider.js';
export type { LlmProvider };

export interface LlmRoute {
  name: string;
  /** IR backend name: with the provider name, the key of provider health. */
  backend: string;
  /** Priority groups in order. */
  groups: LlmProvider[][];
  /** Set when a provider cannot be served (kind or settings): every request gets 501 with this text. */
  unsupported?: string;
  /** With `unsupported` from IR refusals: the error code (`policy_not_enforced` when one concerns security). */
  unsupportedCode?: ErrorCode;
  routes: Record<string, AiRouteType>;
  maxRequestBytes: number;
  /** The whole request (`timeouts.request`), ms; 0 means none. */
  deadlineMs: number;
  /** Each try (`timeouts.backendRequest`), ms; 0 means none. */
  tryDeadlineMs: number;
  /** Prompt guards of the edge (src/proxy/guard), built by the runtime's LlmGuardsFactory. */
  guards?: LlmGuards;
  /** Set on a GwModel route (no backend; models attached): the request's model picks the providers. */
  models?: ModelTable;
}

/**
 * The LLM plan of a route: its first weighted backend is `ai`, or it has no backend and GwModels are
 * attached to it; undefined for any other route. `guards` builds the edge's prompt guards.
 */
export function compileLlmRoute(
  route: Route,
  backends: Map<string, Backend>,
  models: Iterable<Model>,
  maxRequestBytes: number,
  traffic: TrafficPlan | undefined,
  guards: (ref: GuardedEdge) => LlmGuards | undefined,
): LlmRoute | undefined {
  const ref = llmRefOf(route, backends);
  const backend = ref && backends.get(ref.backend);
  if (ref && backend) return llmRouteOf(route, ref, backend, maxRequestBytes, traffic, guards(ref));
  // A GwModel's own prompt guards run through the same factory as an edge's, keyed by the model's name.
  const modelGuards = (m: Model) =>
    m.promptGuard ? guards({ backend: m.name, promptGuard: m.promptGuard }) : undefined;
  const table = route.backends.length === 0 ? modelTableOf(route, models, modelGuards) : undefined;
  return table && modelRouteOf(route, table, maxRequestBytes, traffic);
}

/** The ref an LLM route serves (the first weighted one), or undefined when that backend is not `ai`. */
function llmRefOf(route: Route, backends: Map<string, Backend>): BackendRef | undefined {
  const ref = route.backends.find((b) => b.weight > 0) ?? route.backends[0];
  return ref && backends.get(ref.backend)?.ai ? ref : undefined;
}

function llmRouteOf(
  route: Route,
  ref: BackendRef,
  backend: Backend,
  maxRequestBytes: number,
  traffic?: TrafficPlan,
  guards?: LlmGuards,
): LlmRoute {
  const groups: LlmProvider[][] = [];
  const problems: string[] = [];
  let extAuthUnenforced = false;
  for (const g of backend.ai?.groups ?? []) {
    const out: LlmProvider[] = [];
    for (const p of g.providers) {
      const settings = { ...EMPTY_SETTINGS, ...p.settings };
      const edge = ref.ai?.providers[p.name];
      const endpoint = vendorEndpoint(p, settings, edge?.tls ?? ref.tls);
      if (!endpoint.ok) {
        problems.push(`provider ${p.name}: ${endpoint.message}`);
        continue;
      }
      const extAuth = edge?.extAuthorization ? compileExtAuth(edge.extAuthorization) : undefined;
      if (typeof extAuth === 'string') {
        problems.push(`provider ${p.name}: backend.extAuth (${extAuth})`);
        extAuthUnenforced = true;
        continue;
      }
      if (settings.moderation && !endpoint.endpoint.moderationPath) {
        problems.push(`provider ${p.name}: inline moderation needs an OpenAI provider`);
        continue;
      }
      const transformations = providerTransformations(edge, `provider ${p.name}`);
      if (transformations instanceof Error) {
        problems.push(transformations.message);
        continue;
      }
      const shaping = edge?.transformation
        ? providerShaping(edge.transformation, `provider ${p.name} transformation`)
        : undefined;
      if (typeof shaping === 'string') {
        problems.push(shaping);
        continue;
      }
      out.push({
        name: p.name,
        kind: p.kind,
        endpoint: endpoint.endpoint,
        ...(settings.model ? { model: settings.model } : {}),
        ...(settings.providerOverride ? { metricsProvider: settings.providerOverride } : {}),
        ...(edge ? { edge } : {}),
        ...(transformations ? { transformations } : {}),
        ...(shaping ? { shaping } : {}),
        requestTimeoutMs: edge?.requestTimeoutMs ?? 0,
        ...(edge?.health ? { health: outlierSettings(edge.health) } : {}),
        ...(settings.moderation ? { moderation: settings.moderation } : {}),
        ...(extAuth ? { extAuth } : {}),
      });
    }
    if (out.length > 0) groups.push(out);
  }
  const t = routeTimeouts(route, traffic);
  return {
    name: route.name,
    backend: ref.backend,
    groups,
    routes: ref.ai?.routes ?? {},
    maxRequestBytes,
    deadlineMs: t?.requestMs ?? 0,
    tryDeadlineMs: t?.backendRequestMs ?? 0,
    // A route with a provider it cannot serve refuses every request rather than quietly using only the others.
    ...(problems.length > 0 ? { unsupported: problems.join('; ') } : {}),
    ...(extAuthUnenforced ? { unsupportedCode: 'policy_not_enforced' as const } : {}),
    ...refusedEdge(ref),
    ...(guards ? { guards } : {}),
  };
}

/** An edge whose IR carries refusals is refused as a whole; the translator decided which fields. */
function refusedEdge(ref: BackendRef): Pick<LlmRoute, 'unsupported' | 'unsupportedCode'> {
  const refusals = ref.ai?.refusals ?? [];
  if (refusals.length === 0) return {};
  const fields = refusals.map((r) => `${r.source ? `${r.source} ` : ''}${r.field}`).join(', ');
  return {
    unsupported: `${fields} ${refusals.length > 1 ? 'are' : 'is'} not applied by this release; refusing rather than serving without`,
    unsupportedCode: refusals.some((r) => r.security) ? 'policy_not_enforced' : 'provider_not_supported',
  };
}

/** A GwModel route: no providers of its own, they come from the model each request names. */
function modelRouteOf(route: Route, models: ModelTable, maxRequestBytes: number, traffic?: TrafficPlan): LlmRoute {
  const t = routeTimeouts(route, traffic);
  return {
    name: route.name,
    backend: MODEL_HEALTH_KEY,
    groups: [],
    routes: {},
    maxRequestBytes,
    models,
    deadlineMs: t?.requestMs ?? 0,
    tryDeadlineMs: t?.backendRequestMs ?? 0,
  };
}

/** The route type of a request path: the longest `routes` suffix it ends with, then `*`, then completions. */
export function routeTypeOf(routes: Record<string, AiRouteType>, path: string): AiRouteType {
  let best: string | undefined;
  for (const suffix of Object.keys(routes)) {
    if (suffix !== '*' && path.endsWith(suffix) && (best === undefined || suffix.length > best.length)) best = suffix;
  }
  return routes[best ?? '*'] ?? 'AI_ROUTE_COMPLETIONS';
}

/** Structural problems of `ai` backends, route edges' AI settings and model conditions, for the snapshot check (field paths into the IR). */
export function aiProblems(snapshot: Snapshot, source: string): Problem[] {
  const problems: Problem[] = [];
  for (const r of snapshot.resources) {
    if (r.kind === 'backend' && r.backend?.kind === 'ai') problems.push(...aiBackendProblems(r.backend, source));
    if (r.kind === 'model' && r.model?.routing?.kind === 'CONDITIONAL')
      problems.push(...modelProblems(r.model, source));
    const mp = r.kind === 'model' ? r.model?.provider : undefined;
    const compiled = mp && providerTransformations(mp, '');
    if (compiled instanceof Error)
      problems.push({ source, object: `Model ${r.model?.name ?? ''}`, path: 'provider', message: compiled.message });
    if (r.kind === 'route' && r.route) problems.push(...aiEdgeProblems(r.route, source));
  }
  return problems;
}

/** At least one priority group, no empty group, provider names set and unique, ports in range. */
function aiBackendProblems(b: Backend, source: string): Problem[] {
  const problems: Problem[] = [];
  const object = `Backend ${b.name}`;
  const groups = b.ai?.groups ?? [];
  if (groups.length === 0)
    problems.push({ source, object, path: 'ai.groups', message: 'must have at least one priority group' });
  const seen = new Set<string>();
  groups.forEach((g, gi) => {
    if (g.providers.length === 0)
      problems.push({ source, object, path: `ai.groups[${gi}].providers`, message: 'must not be empty' });
    g.providers.forEach((p, pi) => {
      const at = `ai.groups[${gi}].providers[${pi}]`;
      if (!p.name) problems.push({ source, object, path: `${at}.name`, message: 'must not be empty' });
      else if (seen.has(p.name))
        problems.push({ source, object, path: `${at}.name`, message: `duplicates another provider named ${p.name}` });
      seen.add(p.name);
      if (p.port > 65535)
        problems.push({ source, object, path: `${at}.port`, message: `must be between 1 and 65535, got ${p.port}` });
    });
  });
  return problems;
}

/** Every conditional target's `when` compiles with the variables a model decision has; the provider's TLS is usable. */
function modelProblems(m: Model, source: string): Problem[] {
  const problems: Problem[] = [];
  const tls = m.provider?.tls && tlsSettingsProblem(m.provider.tls);
  if (tls) problems.push({ source, object: `Model ${m.name}`, path: 'provider.tls', message: tls });
  m.routing?.targets.forEach((t, i) => {
    if (!t.when) return;
    try {
      compileCel(t.when, ['jwt', 'request', 'llmRequest']);
    } catch (err) {
      problems.push({
        source,
        object: `Model ${m.name}`,
        path: `routing.targets[${i}].when`,
        message: (err as Error).message,
      });
    }
  });
  return problems;
}

/** A route edge's per-provider credentials are complete, its TLS settings usable, its field values JSON. */
function aiEdgeProblems(route: Route, source: string): Problem[] {
  const problems: Problem[] = [];
  const object = `Route ${route.name}`;
  route.backends.forEach((ref, i) => {
    for (const [name, p] of Object.entries(ref.ai?.providers ?? {})) {
      const at = `backends[${i}].ai.providers[${name}]`;
      if (p.credential?.kind === 'key' && !p.credential.key)
        problems.push({ source, object, path: `${at}.credential.key`, message: 'must not be empty' });
      for (const field of credentialGaps(p.credential))
        problems.push({ source, object, path: `${at}.credential.${field}`, message: 'must not be empty' });
      const tls = p.tls && tlsSettingsProblem(p.tls);
      if (tls) problems.push({ source, object, path: `${at}.tls`, message: tls });
      for (const f of [...p.defaults, ...p.overrides])
        if (!isJson(f.valueJson))
          problems.push({ source, object, path: at, message: `value of field ${f.field} must be JSON text` });
      const compiled = providerTransformations(p, '');
      if (compiled instanceof Error) problems.push({ source, object, path: at, message: compiled.message });
    }
  });
  return problems;
}

/** Fields a cloud credential cannot work without (AWS keys may both be empty: the proxy's environment). */
function credentialGaps(c: AiProviderEdge['credential']): string[] {
  const empty = (o: Record<string, unknown>, prefix: string, fields: string[]): string[] =>
    fields.filter((f) => !o[f]).map((f) => `${prefix}.${f.replace(/[A-Z]/g, (x) => `_${x.toLowerCase()}`)}`);
  if (c?.kind === 'aws' && c.aws?.accessKeyId) return empty({ ...c.aws }, 'aws', ['secretAccessKey']);
  if (c?.kind === 'azure') return empty({ ...c.azure }, 'azure', ['tenantId', 'clientId', 'clientSecret']);
  if (c?.kind === 'gcp') return empty({ ...c.gcp }, 'gcp', ['clientEmail', 'privateKey', 'tokenUri']);
  return [];
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
