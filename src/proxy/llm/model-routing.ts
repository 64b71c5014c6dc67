// GwModel routing (IR `Model` resources): which model a chat request's `model` selects on a route, and
// the providers (in failover groups) that serve it. Compiled once per snapshot; resolved per request.
// Behaviour: docs/proxy.md "LLM backends" (GwModel routing).
import type { Route } from '../../ir/types.js';
import type { Model__Output } from '../../ir/gen/gw/ir/v1/Model.js';
import type { AiProviderEdge__Output as AiProviderEdge } from '../../ir/gen/gw/ir/v1/AiProviderEdge.js';
import { compileCel, holds, type CelBindings, type CompiledCel } from '../policy/cel/env.js';
import type { LlmProvider } from './llm-route.js';
import { SYSTEM_ROOTS, parseJsonObject, vendorEndpoint, type VendorResult } from './vendors.js';
import type { ErrorCode } from '../proxy-error.js';

type IrModel = Model__Output;

/** Health of model providers is kept per model name, shared by every route that serves the model. */
export const MODEL_HEALTH_KEY = 'GwModel';

/** Why a provider model cannot be served, and how the client is answered. */
interface Refusal {
  error: ErrorCode;
  message: string;
}

interface ModelEntry {
  model: IrModel;
  /** Set for provider models: how to call it (the upstream model is filled per request), or why it cannot be served. */
  provider?: LlmProvider | Refusal;
  /** Conditional routing: the compiled `when` of each target (undefined for the final fallback). */
  conditions?: (CompiledCel | undefined)[];
}

export interface ModelTable {
  /** Models attached to the route or one of its listeners, by name (Internal ones included: virtual models select them). */
  byName: Map<string, ModelEntry>;
  /** Public models in match precedence: exact, then longest prefix, then longest suffix, then any. */
  public: IrModel[];
}

export type ModelChoice = { ok: true; model: string; groups: LlmProvider[][] } | { ok: false; error: ErrorCode; message: string };

/** The models a route serves, or undefined when none is attached to it (directly or through its listeners). */
export function modelTableOf(route: Route, models: Iterable<IrModel>): ModelTable | undefined {
  const parents = new Set([route.name, ...route.listeners]);
  const attached = [...models].filter((m) => m.parents.some((p) => parents.has(p)));
  // Listener-level models join only routes that use the GwModel backend themselves (a model attached to the route).
  if (!attached.some((m) => m.parents.includes(route.name))) return undefined;
  const byName = new Map<string, ModelEntry>();
  for (const model of attached) byName.set(model.name, entryOf(model));
  const rank = (m: IrModel): [number, number] => {
    const k = m.match?.kind;
    if (k === 'exact') return [0, 0];
    if (k === 'prefix') return [1, -(m.match?.prefix ?? '').length];
    if (k === 'suffix') return [2, -(m.match?.suffix ?? '').length];
    return [3, 0];
  };
  const pub = attached.filter((m) => m.visibility !== 'INTERNAL').sort((a, b) => {
    const [ra, la] = rank(a), [rb, lb] = rank(b);
    return ra - rb || la - lb || (a.name < b.name ? -1 : 1);
  });
  return { byName, public: pub };
}

function entryOf(model: IrModel): ModelEntry {
  if (model.provider) return { model, provider: providerOf(model) };
  if (model.routing?.kind === 'CONDITIONAL') {
    return { model, conditions: model.routing.targets.map((t) => (t.when ? safeCompile(t.when) : undefined)) };
  }
  return { model };
}

function safeCompile(when: string): CompiledCel | undefined {
  try {
    return compileCel(when, ['jwt', 'request', 'llmRequest']);
  } catch {
    // An expression that does not compile never holds; the snapshot check refuses such snapshots (aiProblems).
    return { source: when, evaluate: () => new Error('invalid') };
  }
}

function matches(m: IrModel, requested: string): boolean {
  const match = m.match;
  switch (match?.kind) {
    case 'exact': return requested === match.exact;
    case 'prefix': return requested.startsWith(match.prefix ?? '');
    case 'suffix': return requested.endsWith(match.suffix ?? '');
    case 'any': return true;
    default: return false;
  }
}

// Providers whose chat API is OpenAI's (at their own base URL) are called as `openai`.
const KINDS: Record<string, string> = {
  OpenAI: 'openai', Anthropic: 'anthropic', Custom: 'custom', Mistral: 'openai', Groq: 'openai', DeepSeek: 'openai', XAI: 'openai',
  Together: 'openai', Fireworks: 'openai', Perplexity: 'openai', OpenRouter: 'openai', Cerebras: 'openai', Ollama: 'openai', Gemini: 'gemini',
  Bedrock: 'bedrock', Azure: 'azure', VertexAI: 'vertexai',
};
// Providers addressed by their settings (region, resource, project): a baseURL only moves the host.
const SETTINGS_ADDRESSED: Record<string, string> = { Bedrock: 'bedrock', Azure: 'azure', VertexAI: 'vertexai' };
const DEFAULT_BASE: Record<string, string> = {
  OpenAI: 'https://api.openai.com/v1', Anthropic: 'https://api.anthropic.com/v1', Mistral: 'https://api.mistral.ai/v1',
  Groq: 'https://api.groq.com/openai/v1', DeepSeek: 'https://api.deepseek.com/v1', XAI: 'https://api.x.ai/v1',
  Together: 'https://api.together.xyz/v1', Fireworks: 'https://api.fireworks.ai/inference/v1', Perplexity: 'https://api.perplexity.ai',
  OpenRouter: 'https://openrouter.ai/api/v1', Cerebras: 'https://api.cerebras.ai/v1', Ollama: 'http://localhost:11434/v1',
  Gemini: 'https://generativelanguage.googleapis.com/v1beta/openai',
};
const CHAT_SUFFIX: Record<string, string> = { openai: '/chat/completions', gemini: '/chat/completions', anthropic: '/messages' };

/** GwModel `policies` fields the model path does not apply (`health` is advisory and ignored). */
const MODEL_POLICIES_NOT_APPLIED = ['authorization', 'promptGuard', 'transformations', 'finalTransformations', 'headers', 'tls', 'tunnel'];

const notSupported = (message: string): Refusal => ({ error: 'provider_not_supported', message });

/** How to call a provider model, or why it cannot be served. */
function providerOf(m: IrModel): LlmProvider | Refusal {
  const p = m.provider;
  const kind = KINDS[p?.provider ?? ''];
  if (!p || !kind) return notSupported(`GwModel provider ${p?.provider || 'unset'} is not supported by this proxy yet (supported: ${Object.keys(KINDS).join(', ')})`);
  const settings = parseJsonObject(p.settingsJson);
  const policies = parseJsonObject(p.policiesJson);
  const endpoint = SETTINGS_ADDRESSED[p.provider] ? settingsEndpoint(m, kind, settings) : urlEndpoint(m, kind, settings);
  if (!endpoint.ok) return notSupported(`GwModel ${m.name}: ${endpoint.message}`);
  // Guards and authorization must never be skipped silently; the others would change what is sent.
  const unenforced = MODEL_POLICIES_NOT_APPLIED.filter((k) => policies[k] !== undefined);
  if (unenforced.length > 0) return notSupported(`GwModel ${m.name} policies.${unenforced.join(', policies.')} ${unenforced.length > 1 ? 'are' : 'is'} not applied by this proxy yet; it refuses the model rather than serve it without`);
  const credential = credentialOf(m, (policies.auth ?? {}) as Record<string, unknown>);
  if (credential !== null && 'error' in credential) return credential;
  const edge: AiProviderEdge = { credential, modelAliases: {}, defaults: [], overrides: [], promptPrepend: [], promptAppend: [], tls: null };
  return { name: m.name, kind, endpoint: endpoint.endpoint, edge, requestTimeoutMs: 0 };
}

/** Bedrock, Azure and Vertex AI models: addressed by their own settings object; a baseURL replaces the host and port. */
function settingsEndpoint(m: IrModel, kind: string, settings: Record<string, unknown>): VendorResult {
  const own = (settings[kind] ?? {}) as Record<string, unknown>;
  let url: URL | undefined;
  try {
    url = m.provider?.baseUrl ? new URL(m.provider.baseUrl) : undefined;
  } catch {
    return { ok: false, message: 'baseURL is not a URL' };
  }
  const https = url?.protocol !== 'http:';
  const port = url ? Number(url.port) || (https ? 443 : 80) : 0;
  return vendorEndpoint({
    name: m.name, kind, settingsJson: JSON.stringify(own), host: url ? url.hostname.replace(/^\[|\]$/g, '') : '', port,
    path: '', pathPrefix: '', policiesJson: m.provider?.policiesJson ?? '',
  }, own, url && https ? SYSTEM_ROOTS : null);
}

/** Providers addressed by a base URL (their own or the vendor's default). */
function urlEndpoint(m: IrModel, kind: string, settings: Record<string, unknown>): VendorResult {
  const p = m.provider as NonNullable<IrModel['provider']>;
  let url: URL;
  try {
    url = new URL(p.baseUrl || DEFAULT_BASE[p.provider] || '');
  } catch {
    return { ok: false, message: `needs a baseURL for provider ${p.provider}` };
  }
  const https = url.protocol === 'https:';
  const prefix = url.pathname.replace(/\/+$/, '');
  const custom = (settings.custom ?? {}) as Record<string, unknown>;
  const hasFormatPath = Array.isArray(custom.formats) && custom.formats.some((f: { path?: unknown }) => typeof f.path === 'string');
  return vendorEndpoint({
    name: m.name, kind, settingsJson: JSON.stringify(kind === 'custom' ? custom : settings),
    host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) || (https ? 443 : 80),
    // The base URL's path is the API prefix; an empty one means the chat path sits at the root.
    path: kind === 'custom' ? (!hasFormatPath && prefix ? `${prefix}/chat/completions` : '') : `${prefix}${CHAT_SUFFIX[kind] ?? ''}`,
    pathPrefix: kind === 'custom' ? '' : prefix, policiesJson: p.policiesJson,
  }, kind === 'custom' ? { formats: custom.formats ?? [{ format: 'Completions' }] } : settings, https ? SYSTEM_ROOTS : null);
}

// `policies.auth` fields that would change where the credential goes; sending it elsewhere fails at the vendor.
const AUTH_NOT_APPLIED = ['location', 'credentials'];

/**
 * The model's upstream credential: the one the controller resolved, else (snapshots from before it did)
 * an inline key or passthrough in its policies. A `secretRef` without a resolved credential means the
 * Secret or its key is missing: refused, never sent keyless.
 */
function credentialOf(m: IrModel, auth: Record<string, unknown>): AiProviderEdge['credential'] | Refusal {
  const unapplied = AUTH_NOT_APPLIED.filter((k) => auth[k] !== undefined);
  if (unapplied.length > 0) return notSupported(`GwModel ${m.name} policies.auth.${unapplied.join(', policies.auth.')} ${unapplied.length > 1 ? 'are' : 'is'} not applied by this proxy yet; it refuses the model rather than send the credential elsewhere`);
  if (m.provider?.credential) return m.provider.credential;
  if (typeof auth.key === 'string') return { kind: 'key', key: auth.key, source: m.name };
  if (auth.passthrough !== undefined) return { kind: 'passthrough', passthrough: true, source: m.name };
  const unresolved = ['secretRef', 'aws', 'azure', 'gcp'].find((k) => auth[k] !== undefined);
  if (unresolved) {
    return { error: 'credential_missing', message: `GwModel ${m.name} policies.auth.${unresolved}: the credential could not be resolved (see the GwModel's status); the model is refused rather than called without it` };
  }
  const kinds = Object.keys(auth).filter((k) => auth[k] !== undefined).sort();
  return kinds.length > 0 ? notSupported(`GwModel ${m.name} policies.auth.${kinds.join(', ')} is not supported by this proxy yet (key, secretRef, passthrough, aws, azure and gcp are)`) : null;
}

/**
 * The providers serving `requested` on this route: the first Public model that matches, and for a
 * virtual model its targets (failover: by priority, one group per priority; weighted: the weighted pick
 * first, the others after; conditional: the first target whose `when` holds). One level of virtual
 * models: a virtual target that is itself virtual is skipped.
 */
export function chooseModel(table: ModelTable, requested: string, bindings: CelBindings, random: () => number): ModelChoice {
  const m = table.public.find((x) => matches(x, requested));
  if (!m) return { ok: false, error: 'model_not_found', message: `no model on this route matches ${JSON.stringify(requested)}` };
  const entry = table.byName.get(m.name) as ModelEntry;
  if (entry.provider !== undefined) return single(entry, requested);
  const routing = m.routing;
  if (!routing) return { ok: false, error: 'no_backend', message: `model ${m.name} has neither provider nor routing` };
  const target = (t: { model: string; modelName: string }): LlmProvider | Refusal | undefined => {
    const e = table.byName.get(t.model);
    if (!e?.provider) return undefined;
    return isRefusal(e.provider) ? e.provider : { ...e.provider, model: t.modelName || requested };
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
    const i = routing.targets.findIndex((t, j) => !t.when || (entry.conditions?.[j] !== undefined && holds(entry.conditions[j] as CompiledCel, bindings)));
    const t = routing.targets[i];
    groups = t ? [[target(t)]] : [];
    if (!t) return { ok: false, error: 'model_not_found', message: `no condition of model ${m.name} holds for this request` };
  }
  const refused = groups.flat().find((p): p is Refusal => p !== undefined && isRefusal(p));
  const usable = groups.map((g) => g.filter((p): p is LlmProvider => p !== undefined && !isRefusal(p))).filter((g) => g.length > 0);
  if (usable.length === 0) return refused ? { ok: false, ...refused } : { ok: false, error: 'no_backend', message: `model ${m.name} has no usable target` };
  return { ok: true, model: m.name, groups: usable };
}

function isRefusal(p: LlmProvider | Refusal): p is Refusal {
  return 'error' in p;
}

function single(entry: ModelEntry, requested: string): ModelChoice {
  if (entry.provider && isRefusal(entry.provider)) return { ok: false, ...entry.provider };
  return { ok: true, model: entry.model.name, groups: [[{ ...(entry.provider as LlmProvider), model: requested }]] };
}

/** `GET …/models` on a model route: the Public models with an exact name, OpenAI's list shape. */
export function modelList(table: ModelTable): { object: 'list'; data: { id: string; object: 'model'; owned_by: string }[] } {
  return {
    object: 'list',
    data: table.public.filter((m) => m.match?.kind === 'exact').map((m) => ({ id: m.match?.exact ?? '', object: 'model' as const, owned_by: m.provider?.provider || 'gw' })),
  };
}
