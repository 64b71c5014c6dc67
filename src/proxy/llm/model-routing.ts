// GwModel routing (IR `Model` resources): which model a chat request's `model` selects on a route, and
// the providers (in failover groups) that serve it. Compiled once per snapshot; resolved per request.
// Behaviour: docs/proxy.md "LLM backends" (GwModel routing).
import type { BackendTls, Route } from '../../ir/types.js';
import type { Model__Output } from '../../ir/gen/gw/ir/v1/Model.js';
import type { AiProviderEdge__Output as AiProviderEdge } from '../../ir/gen/gw/ir/v1/AiProviderEdge.js';
import { compileCel, holds, type CelBindings, type CompiledCel } from '../policy/cel/env.js';
import type { LlmProvider } from './llm-provider.js';
import type { LlmGuards } from '../guard/types.js';
import { EMPTY_SETTINGS, SYSTEM_ROOTS, vendorEndpoint, type VendorResult } from './vendors.js';
import type { AiProvider__Output as AiProvider } from '../../ir/gen/gw/ir/v1/AiProvider.js';
import type { AiProviderSettings__Output as Settings } from '../../ir/gen/gw/ir/v1/AiProviderSettings.js';
import type { Refusal__Output as IrRefusal } from '../../ir/gen/gw/ir/v1/Refusal.js';
import type { ErrorCode } from '../proxy-error.js';
import { compileModelAuthorization, ruleActions } from '../auth/authorization.js';
import { outlierSettings } from '../policy/outlier.js';
import { providerTransformations } from './field-transformations.js';

type IrModel = Model__Output;

/** Health of model providers is kept per model name, shared by every route that serves the model. */
export const MODEL_HEALTH_KEY = 'GwModel';

/** Why a provider model cannot be served, and how the client is answered. */
interface Refusal {
  error: ErrorCode;
  message: string;
  /** The IR refusals that caused it; the forwarder logs them once per compiled model. */
  refusals?: IrRefusal[];
}

export interface ModelEntry {
  model: IrModel;
  /** Set for provider models: how to call it (the upstream model is filled per request), or why it cannot be served. */
  provider?: LlmProvider | Refusal;
  /** Conditional routing: the compiled `when` of each target (undefined for the final fallback). */
  conditions?: (CompiledCel | undefined)[];
  /** `policies.authorization`: whether a request may be served by this model, or why no request may. */
  authorize?: ((bindings: CelBindings) => boolean) | Refusal;
}

export interface ModelTable {
  /** Models attached to the route or one of its listeners, by name (Internal ones included: virtual models select them). */
  byName: Map<string, ModelEntry>;
  /** Public models in match precedence: exact, then longest prefix, then longest suffix, then any. */
  public: IrModel[];
}

export type ModelChoice =
  | { ok: true; model: string; groups: LlmProvider[][] }
  | { ok: false; error: ErrorCode; message: string; refusals?: IrRefusal[] };

/** The models a route serves, or undefined when none is attached to it (directly or through its listeners). */
export function modelTableOf(
  route: Route,
  models: Iterable<IrModel>,
  guards: (m: IrModel) => LlmGuards | undefined = () => undefined,
): ModelTable | undefined {
  const parents = new Set([route.name, ...route.listeners]);
  const attached = [...models].filter((m) => m.parents.some((p) => parents.has(p)));
  // Listener-level models join only routes that use the GwModel backend themselves (a model attached to the route).
  if (!attached.some((m) => m.parents.includes(route.name))) return undefined;
  const byName = new Map<string, ModelEntry>();
  for (const model of attached) byName.set(model.name, entryOf(model, guards));
  const rank = (m: IrModel): [number, number] => {
    const k = m.match?.kind;
    if (k === 'exact') return [0, 0];
    if (k === 'prefix') return [1, -(m.match?.prefix ?? '').length];
    if (k === 'suffix') return [2, -(m.match?.suffix ?? '').length];
    return [3, 0];
  };
  const pub = attached
    .filter((m) => m.visibility !== 'INTERNAL')
    .sort((a, b) => {
      const [ra, la] = rank(a),
        [rb, lb] = rank(b);
      return ra - rb || la - lb || (a.name < b.name ? -1 : 1);
    });
  return { byName, public: pub };
}

function entryOf(model: IrModel, guards: (m: IrModel) => LlmGuards | undefined): ModelEntry {
  const authorize = authorizerOf(model);
  const entry: ModelEntry = { model, ...(authorize ? { authorize } : {}) };
  // A model with refusals (an invalid one that sets security fields has nothing else) is refused whole.
  if (model.provider || model.refusals.length > 0) {
    const provider = providerOf(model);
    const own = isRefusal(provider) ? undefined : guards(model);
    return { ...entry, provider: own ? { ...provider, guards: own } : provider };
  }
  if (model.routing?.kind === 'CONDITIONAL') {
    return { ...entry, conditions: model.routing.targets.map((t) => (t.when ? safeCompile(t.when) : undefined)) };
  }
  return entry;
}

/** The model's own rules; rules that do not compile refuse every request to it (fail closed, issue 31). */
function authorizerOf(m: IrModel): ModelEntry['authorize'] {
  const rules = m.authorization?.rules ?? [];
  if (rules.length === 0) return undefined;
  try {
    return compileModelAuthorization(
      rules.map((r) => ({ expressions: r.expressions, action: ruleActions[r.action] })),
      'spec.policies.authorization',
      m.name,
    );
  } catch {
    return {
      error: 'policy_not_enforced',
      message: `${m.name}: policies.authorization does not compile; the model is refused rather than served unchecked`,
    };
  }
}

/** Why `bindings` may not be served by model `e`, if they may not. */
function deniedBy(e: ModelEntry | undefined, bindings: CelBindings): Refusal | undefined {
  const a = e?.authorize;
  if (!e || a === undefined) return undefined;
  if (typeof a !== 'function') return a;
  return a(bindings) ? undefined : { error: 'forbidden', message: `model ${e.model.name} does not allow this request` };
}

function safeCompile(when: string): CompiledCel | undefined {
  try {
    return compileCel(when, ['jwt', 'request', 'llmRequest']);
  } catch {
    // An expression that does not compile never holds; the snapshot check refuses such snapshots (aiProblems).
    return { source: when, evaluate: () => new Error('invalid') };
  }
}

/** Whether `requested` is a name model `m` answers to (its match: exact, prefix, suffix or any). */
export function matches(m: IrModel, requested: string): boolean {
  const match = m.match;
  switch (match?.kind) {
    case 'exact':
      return requested === match.exact;
    case 'prefix':
      return requested.startsWith(match.prefix ?? '');
    case 'suffix':
      return requested.endsWith(match.suffix ?? '');
    case 'any':
      return true;
    default:
      return false;
  }
}

// Providers addressed by their settings (region, resource, project): a baseURL only moves the host.
const SETTINGS_ADDRESSED = new Set(['bedrock', 'azure', 'vertexai']);
const CHAT_SUFFIX: Record<string, string> = {
  openai: '/chat/completions',
  gemini: '/chat/completions',
  anthropic: '/messages',
  cohere: '/chat',
};

/** The Azure OpenAI GA API version used when a GwModel's baseURL names a deployment (a baseURL carries no query). */
export const AZURE_OPENAI_DEPLOYMENT_API_VERSION = '2024-10-21';

const notSupported = (message: string): Refusal => ({ error: 'provider_not_supported', message });

/** How to call a provider model, or why it cannot be served (the translator decided; nothing is re-decided here). */
function providerOf(m: IrModel): LlmProvider | Refusal {
  const p = m.provider;
  if (m.refusals.length > 0) {
    const security = m.refusals.some((r) => r.security);
    const fields = m.refusals.map((r) => r.field).join(', ');
    return {
      refusals: m.refusals,
      error: security ? 'policy_not_enforced' : 'provider_not_supported',
      message: `${m.name}: ${fields} ${m.refusals.length > 1 ? 'are' : 'is'} not applied by this release; the model is refused rather than served without (see the GwModel's status)`,
    };
  }
  if (!p || !p.kind)
    return notSupported(`${m.name}: provider ${p?.provider || 'unset'} is not supported by this proxy`);
  if (p.backendProblem)
    return {
      error: 'no_backend',
      message: `${m.name} ${p.backendProblem} (see the GwModel's status); the model is refused rather than called elsewhere`,
    };
  if (p.credentialProblem) {
    return {
      error: 'credential_missing',
      message: `${m.name} ${p.credentialProblem} (see the GwModel's status); the model is refused rather than called without it`,
    };
  }
  const settings = { ...EMPTY_SETTINGS, ...(p.settings ?? {}) };
  const endpoint =
    p.kind === 'azureopenai'
      ? azureOpenAiEndpoint(m, settings)
      : SETTINGS_ADDRESSED.has(p.kind)
        ? settingsEndpoint(m, p.kind, settings)
        : urlEndpoint(m, p.kind, settings);
  if (!endpoint.ok) return notSupported(`GwModel ${m.name}: ${endpoint.message}`);
  // The GwModel's policies as an edge's: the forwarder applies both through the same code.
  const edge: AiProviderEdge = {
    credential: p.credential,
    modelAliases: {},
    defaults: [],
    overrides: [],
    promptPrepend: [],
    promptAppend: [],
    tls: p.tls,
    requestTimeoutMs: 0,
    health: null,
    extAuthorization: null,
    transformations: p.transformations,
    finalTransformations: p.finalTransformations,
    promptCaching: null,
    tunnel: p.tunnel,
    tcp: null,
    httpVersion: 'HTTP_VERSION_UNSPECIFIED',
    transformation: null,
  };
  const transformations = providerTransformations(edge, `GwModel ${m.name} spec.policies`);
  // Fail closed: the snapshot check refuses such a snapshot, so this is only reached without it.
  if (transformations instanceof Error) return notSupported(transformations.message);
  return {
    name: m.name,
    kind: p.kind,
    endpoint: endpoint.endpoint,
    edge,
    ...(transformations ? { transformations } : {}),
    requestTimeoutMs: 0,
    ...(p.health ? { health: outlierSettings(p.health) } : {}),
    ...(settings.model ? { model: settings.model } : {}),
    ...(p.credentialLocation ? { credentialLocation: p.credentialLocation } : {}),
    ...(p.extraCredentials.length > 0 ? { extraCredentials: p.extraCredentials } : {}),
    ...(p.requestHeaders ? { requestHeaders: p.requestHeaders } : {}),
    ...(settings.providerOverride ? { metricsProvider: settings.providerOverride } : {}),
    ...(p.inferencePool ? { pool: p.inferencePool } : {}),
  };
}

/** `spec.policies.tls` when set (TLS whatever the baseURL's scheme, as `backend.tls` on an edge); else system roots on https. */
const modelTls = (m: IrModel, https: boolean): BackendTls | null => m.provider?.tls ?? (https ? SYSTEM_ROOTS : null);

const irProvider = (
  m: IrModel,
  kind: string,
  settings: Settings,
  at: { host: string; port: number; path: string; pathPrefix: string },
): AiProvider => ({
  name: m.name,
  kind,
  settingsJson: '',
  policiesJson: '',
  settings,
  ...at,
});

/** Bedrock, Azure and Vertex AI models: addressed by their own settings; a baseURL replaces the host and port. */
function settingsEndpoint(m: IrModel, kind: string, settings: Settings): VendorResult {
  let url: URL | undefined;
  try {
    url = m.provider?.baseUrl ? new URL(m.provider.baseUrl) : undefined;
  } catch {
    return { ok: false, message: 'baseURL is not a URL' };
  }
  const https = url?.protocol !== 'http:';
  const port = url ? Number(url.port) || (https ? 443 : 80) : 0;
  const host = url ? url.hostname.replace(/^\[|\]$/g, '') : '';
  return vendorEndpoint(
    irProvider(m, kind, settings, { host, port, path: '', pathPrefix: '' }),
    settings,
    modelTls(m, !!url && https),
  );
}

/**
 * AzureOpenAI models: the baseURL is the resource endpoint. Without a path the v1 API is called (model in
 * the body); a path `/openai/deployments/<name>` calls that deployment with api-version
 * AZURE_OPENAI_DEPLOYMENT_API_VERSION. Any other path is refused rather than guessed at.
 */
function azureOpenAiEndpoint(m: IrModel, settings: Settings): VendorResult {
  let url: URL;
  try {
    url = new URL(m.provider?.baseUrl ?? '');
  } catch {
    return { ok: false, message: 'needs a baseURL for provider AzureOpenAI (the resource endpoint)' };
  }
  const path = url.pathname.replace(/\/+$/, '');
  const deployment = /^\/openai\/deployments\/([^/]+)$/.exec(path)?.[1];
  if (path !== '' && path !== '/openai/v1' && !deployment)
    return {
      ok: false,
      message: `baseURL path ${path} is neither empty, /openai/v1 nor /openai/deployments/<name> (provider AzureOpenAI)`,
    };
  const https = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const s: Settings = deployment
    ? {
        ...settings,
        endpoint: host,
        deploymentName: decodeURIComponent(deployment),
        apiVersion: AZURE_OPENAI_DEPLOYMENT_API_VERSION,
      }
    : { ...settings, endpoint: host, apiVersion: 'v1' };
  const at = { host, port: Number(url.port) || (https ? 443 : 80), path: '', pathPrefix: '' };
  return vendorEndpoint(irProvider(m, 'azureopenai', s, at), s, modelTls(m, https));
}

/** Providers addressed by a base URL (their own or the vendor's default, filled by the translator). */
function urlEndpoint(m: IrModel, kind: string, settings: Settings): VendorResult {
  let url: URL;
  try {
    url = new URL(m.provider?.baseUrl ?? '');
  } catch {
    return { ok: false, message: `needs a baseURL for provider ${m.provider?.provider ?? ''}` };
  }
  const https = url.protocol === 'https:';
  const prefix = url.pathname.replace(/\/+$/, '');
  const hasFormatPath = settings.formats.some((f) => f.path);
  const formats = settings.formats.length > 0 ? settings.formats : [{ format: 'Completions', path: '' }];
  const at = {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port) || (https ? 443 : 80),
    // The base URL's path is the API prefix; an empty one means the chat path sits at the root.
    path:
      kind === 'custom'
        ? !hasFormatPath && prefix
          ? `${prefix}/chat/completions`
          : ''
        : `${prefix}${CHAT_SUFFIX[kind] ?? ''}`,
    pathPrefix: kind === 'custom' ? '' : prefix,
  };
  const s = kind === 'custom' ? { ...settings, formats } : settings;
  return vendorEndpoint(irProvider(m, kind, s, at), s, modelTls(m, https));
}

/**
 * The providers serving `requested` on this route: the first Public model that matches, and for a
 * virtual model its targets (failover: by priority, one group per priority; weighted: the weighted pick
 * first, the others after; conditional: the first target whose `when` holds). One level of virtual
 * models: a virtual target that is itself virtual is skipped.
 */
export function chooseModel(
  table: ModelTable,
  requested: string,
  bindings: CelBindings,
  random: () => number,
): ModelChoice {
  const m = table.public.find((x) => matches(x, requested));
  if (!m)
    return {
      ok: false,
      error: 'model_not_found',
      message: `no model on this route matches ${JSON.stringify(requested)}`,
    };
  const entry = table.byName.get(m.name) as ModelEntry;
  const denied = deniedBy(entry, bindings);
  if (denied) return { ok: false, ...denied };
  if (entry.provider !== undefined) return single(entry, requested);
  const routing = m.routing;
  if (!routing) return { ok: false, error: 'no_backend', message: `model ${m.name} has neither provider nor routing` };
  const target = (t: { model: string; modelName: string }): LlmProvider | Refusal | undefined => {
    const e = table.byName.get(t.model);
    // A target's own rules hold for requests a virtual model sends it: reaching it indirectly is no way around them.
    const no = deniedBy(e, bindings);
    if (no) return no;
    if (!e?.provider) return undefined;
    return isRefusal(e.provider) ? e.provider : { ...e.provider, model: t.modelName || e.provider.model || requested };
  };
  let groups: (LlmProvider | Refusal | undefined)[][] = [];
  if (routing.kind === 'FAILOVER') {
    const byPriority = new Map<number, (LlmProvider | Refusal | undefined)[]>();
    for (const t of routing.targets) byPriority.set(t.priority, [...(byPriority.get(t.priority) ?? []), target(t)]);
    groups = [...byPriority.keys()].sort((a, b) => a - b).map((k) => byPriority.get(k) ?? []);
  } else if (routing.kind === 'WEIGHTED') {
    const total = routing.targets.reduce((s, t) => s + Math.max(0, t.weight), 0);
    let point = random() * total;
    const pick = routing.targets.findIndex((t) => (point -= Math.max(0, t.weight)) < 0);
    const order = pick < 0 ? routing.targets : [routing.targets[pick], ...routing.targets.filter((_, i) => i !== pick)];
    groups = order.map((t) => [t ? target(t) : undefined]);
  } else if (routing.kind === 'CONDITIONAL') {
    const i = routing.targets.findIndex(
      (t, j) => !t.when || (entry.conditions?.[j] !== undefined && holds(entry.conditions[j] as CompiledCel, bindings)),
    );
    const t = routing.targets[i];
    groups = t ? [[target(t)]] : [];
    if (!t)
      return { ok: false, error: 'model_not_found', message: `no condition of model ${m.name} holds for this request` };
  }
  const refused = groups.flat().find((p): p is Refusal => p !== undefined && isRefusal(p));
  const usable = groups
    .map((g) => g.filter((p): p is LlmProvider => p !== undefined && !isRefusal(p)))
    .filter((g) => g.length > 0);
  if (usable.length === 0)
    return refused
      ? { ok: false, ...refused }
      : { ok: false, error: 'no_backend', message: `model ${m.name} has no usable target` };
  return { ok: true, model: m.name, groups: usable };
}

function isRefusal(p: LlmProvider | Refusal): p is Refusal {
  return 'error' in p;
}

function single(entry: ModelEntry, requested: string): ModelChoice {
  if (entry.provider && isRefusal(entry.provider)) return { ok: false, ...entry.provider };
  const p = entry.provider as LlmProvider;
  // The settings' `model` (e.g. `custom.model`) replaces the requested one upstream.
  return { ok: true, model: entry.model.name, groups: [[{ ...p, model: p.model || requested }]] };
}

/** `GET …/models` on a model route: the Public models with an exact name, OpenAI's list shape. */
export function modelList(table: ModelTable): {
  object: 'list';
  data: { id: string; object: 'model'; owned_by: string }[];
} {
  return {
    object: 'list',
    data: table.public
      .filter((m) => m.match?.kind === 'exact')
      .map((m) => ({ id: m.match?.exact ?? '', object: 'model' as const, owned_by: m.provider?.provider || 'gw' })),
  };
}
