// LLM settings of one route → `ai` backend edge: the winning `backend.auth`, `backend.ai` and
// `backend.tls` values of each provider (edge policy, then the provider's own and sectionName-targeted
// ones) with the credential Secret and TLS references resolved. Pure: every read goes through the context. Messages name the field and the object,
// never the key.
import type { MergedFields } from '../policies/policy-merge.js';
import { upstreamConnection } from './backend-connection.js';
import { backendTls } from './backend-tls.js';
import type { Ctx } from '../objects/context.js';
import { secretData } from '../policies/policy-secrets.js';
import { CACHING_KINDS, cachingSupport } from '../../ir/prompt-caching.js';
import type {
  AiCredentialInput,
  AiProviderInput,
  AiEdgeInput,
  AiProviderEdgeInput,
  AiProviderSettingsInput,
  AiRouteTypeInput,
  Refusal,
  RefusalInput,
} from '../../ir/types.js';
import { cloudCredential } from './cloud-credentials.js';
import type { BackendAi, CredentialAuth, VendorSettings } from '../objects/gw-types.js';
import { stableStringify } from '../objects/read.js';
import { parseDurationMs } from '../../ir/duration.js';
import { identityCredential, identityScope, namespaceOfSource, type EndpointResolver } from './backend-identity.js';
import { outlierDetection } from './backend-health.js';
import { providerTransformation } from './backend-transformation.js';

export type BackendAiResult = { ok: true; ai?: AiEdgeInput } | { ok: false; message: string };

/**
 * Pure: the `backend.ai` fields of one merged edge (or provider) policy this release does not apply, as
 * refusals naming the object that set them; the IR AiEdge carries them and the proxy refuses the edge.
 * Every field is applied today (transformations and prompt caching came with issue 34); the hook stays
 * for the next field a release cannot apply.
 */
export function aiEdgeRefusals(m: MergedFields): RefusalInput[] {
  void m;
  return [];
}

/**
 * Status-only refusals of `promptCaching` (the proxy serves the provider without breakpoints, and the
 * status says so rather than claim caching): a provider whose wire format takes no breakpoints (only
 * Anthropic messages and Bedrock Converse do), or whose `model` setting names a family without caching.
 */
export function promptCachingRefusals(
  providers: readonly AiProviderInput[],
  edge: MergedFields,
  perProvider: Record<string, MergedFields>,
): Refusal[] {
  const out: Refusal[] = [];
  for (const p of providers) {
    const m = perProvider[p.name ?? ''] ?? edge;
    if (!m.fields['backend.ai']?.promptCaching) continue;
    const source = m.provenance['backend.ai']?.source ?? '';
    const field = source.startsWith('GwPolicy ') ? 'spec.backend.ai.promptCaching' : 'spec.policies.ai.promptCaching';
    const name = p.name ?? '';
    const format = wireFormatOf(p);
    const model = p.settings?.model ?? '';
    let reason: string | undefined;
    if (!CACHING_KINDS.has(format))
      reason = `provider ${name} speaks the ${format} format, which takes no cache breakpoints (only Anthropic and Bedrock providers do); prompt caching is not applied to it`;
    else if (model && !cachingSupport(format, model))
      reason = `provider ${name} calls model ${model}, whose family has no prompt caching; prompt caching is not applied to it`;
    if (reason) out.push({ field, source, reason, security: false });
  }
  return out;
}

/** The wire format the proxy speaks to a provider (src/proxy/llm/vendors.ts): custom providers with only a Messages format speak Anthropic's. */
function wireFormatOf(p: AiProviderInput): string {
  if (p.kind === 'custom') {
    const formats = p.settings?.formats ?? [];
    const messagesOnly =
      formats.some((f) => f.format === 'Messages') && !formats.some((f) => f.format === 'Completions');
    return messagesOnly ? 'anthropic' : 'openai';
  }
  return p.kind === 'anthropic' || p.kind === 'bedrock' ? p.kind : 'openai';
}

const ROUTE_TYPES: Record<string, AiRouteTypeInput> = {
  Completions: 'AI_ROUTE_COMPLETIONS',
  Messages: 'AI_ROUTE_MESSAGES',
  Responses: 'AI_ROUTE_RESPONSES',
  Embeddings: 'AI_ROUTE_EMBEDDINGS',
  Models: 'AI_ROUTE_MODELS',
  Realtime: 'AI_ROUTE_REALTIME',
  Passthrough: 'AI_ROUTE_PASSTHROUGH',
};

/**
 * The edge's AI settings, or why the edge cannot be programmed (a credential that cannot be resolved:
 * sending the request without it would only move the failure to the vendor, silently). `ai` is left
 * out when nothing is set, so edges without AI policies stay as they were.
 */
export function backendAi(
  ctx: Ctx,
  providers: readonly string[],
  edge: MergedFields,
  perProvider: Record<string, MergedFields>,
  resolverOf: (m: MergedFields) => EndpointResolver,
): BackendAiResult {
  const providerEdges: Record<string, AiProviderEdgeInput> = {};
  const routeTypes: Record<string, AiRouteTypeInput> = {};
  const out: AiEdgeInput = { providers: providerEdges, routes: routeTypes };
  const refusals = new Map<string, RefusalInput>();
  for (const r of aiEdgeRefusals(edge)) refusals.set(`${r.source} ${r.field}`, r);
  let any = false;
  for (const name of providers) {
    const m = perProvider[name] ?? edge;
    const p = providerEdge(ctx, m, resolverOf);
    if (typeof p === 'string') return { ok: false, message: `provider ${name}: ${p}` };
    providerEdges[name] = p;
    for (const r of aiEdgeRefusals(m)) refusals.set(`${r.source} ${r.field}`, r);
    any ||=
      p.credential !== undefined ||
      p.tls !== undefined ||
      p.tunnel !== undefined ||
      p.tcp !== undefined ||
      p.requestTimeoutMs !== undefined ||
      p.httpVersion !== undefined ||
      p.health !== undefined ||
      Object.keys(p.modelAliases ?? {}).length > 0 ||
      p.promptCaching !== undefined ||
      p.transformation !== undefined ||
      [p.defaults, p.overrides, p.promptPrepend, p.promptAppend, p.transformations, p.finalTransformations].some(
        (list) => (list?.length ?? 0) > 0,
      );
  }
  const routes = edge.fields['backend.ai']?.routes ?? {};
  for (const suffix of Object.keys(routes).sort()) {
    const type = ROUTE_TYPES[routes[suffix] ?? ''];
    if (type) routeTypes[suffix] = type;
  }
  any ||= Object.keys(routeTypes).length > 0;
  if (refusals.size > 0) {
    out.refusals = [...refusals.keys()].sort().map((k) => refusals.get(k) as RefusalInput);
    any = true;
  }
  return any ? { ok: true, ai: out } : { ok: true };
}

function providerEdge(
  ctx: Ctx,
  m: MergedFields,
  resolverOf: (m: MergedFields) => EndpointResolver,
): AiProviderEdgeInput | string {
  const ai: BackendAi = m.fields['backend.ai'] ?? {};
  const modelAliases: Record<string, string> = {};
  const out: AiProviderEdgeInput = {
    modelAliases,
    defaults: fieldValues(ai.defaults),
    overrides: fieldValues(ai.overrides),
    promptPrepend: messages(ai.prompt?.prepend),
    promptAppend: messages(ai.prompt?.append),
    transformations: fieldTransformations(ai.transformations),
    finalTransformations: fieldTransformations(ai.finalTransformations),
  };
  const transformation = providerTransformation(m);
  if (transformation) out.transformation = transformation;
  const caching = ai.promptCaching;
  if (caching)
    out.promptCaching = {
      system: caching.system ?? true,
      messages: caching.messages ?? true,
      tools: caching.tools ?? false,
    };
  const aliases = ai.modelAliases ?? {};
  for (const k of Object.keys(aliases).sort()) {
    const v = aliases[k];
    if (v) modelAliases[k] = v;
  }
  const tls = backendTls(ctx, m);
  if (!tls.ok) return tls.message;
  if (tls.tls) out.tls = tls.tls;
  // Like TLS: a provider whose tunnel cannot be built leaves the edge out, never goes around the proxy.
  const connection = upstreamConnection(ctx, m, resolverOf(m));
  if (!connection.ok) return connection.message;
  if (connection.tunnel) out.tunnel = connection.tunnel;
  if (connection.tcp) out.tcp = connection.tcp;
  const timeout = m.fields['backend.http']?.requestTimeout;
  const timeoutMs = timeout ? (parseDurationMs(timeout) ?? 0) : 0;
  if (timeoutMs > 0) out.requestTimeoutMs = timeoutMs;
  // The edge's or the provider's own `http.version`: HTTP2 is the forwarder's HTTP/2 client (h2-upstream.ts).
  if (m.fields['backend.http']?.version === 'HTTP2') out.httpVersion = 'HTTP2';
  const health = m.fields['backend.health'];
  if (health) out.health = outlierDetection(health, m.provenance['backend.health']?.source ?? '');
  const auth = m.fields['backend.auth'];
  if (!auth) return out;
  const source = m.provenance['backend.auth']?.source ?? '';
  const at = (field: string) => `${source ? `${source} ` : ''}backend.auth.${field}`;
  const credential = aiCredential(ctx, auth, namespaceOfSource(source), source, at);
  if (typeof credential === 'string') return credential;
  if (credential) {
    out.credential = credential;
    return out;
  }
  const identity = identityCredential(identityScope(ctx, m, at, resolverOf(m)), auth);
  if (typeof identity === 'string') return identity;
  if (identity) out.credential = identity;
  return out;
}

/**
 * The upstream credential an auth object (BackendAuth or ModelBackendAuth) sets with `key`, `secretRef`
 * (a Secret in `ns`, default key `Authorization`), `passthrough` or a cloud kind (`aws`, `azure`,
 * `gcp`: cloud-credentials.ts); undefined when it sets none of them;
 * a string says why it cannot be resolved (`at(field)` names the field; the message never holds the key).
 */
export function aiCredential(
  ctx: Ctx,
  auth: CredentialAuth,
  ns: string,
  source: string,
  at: (field: string) => string,
): AiCredentialInput | string | undefined {
  const key = auth.key;
  if (key !== undefined) return { kind: 'key', key, source };
  const ref = auth.secretRef;
  if (ref) {
    const name = ref.name,
      dataKey = ref.key ?? 'Authorization';
    const data = secretData(ctx, ns, name);
    if (!data) return `${at('secretRef')}: Secret ${ns}/${name} does not exist`;
    const value = (data[dataKey] ?? '').trim();
    if (!value) return `${at('secretRef')}: Secret ${ns}/${name} has no non-empty key ${dataKey}`;
    return { kind: 'key', key: value, source: `Secret ${ns}/${name} key ${dataKey}` };
  }
  if (auth.passthrough) return { kind: 'passthrough', passthrough: true, source };
  return cloudCredential(ctx, auth, ns, source, at);
}

function fieldValues(v: BackendAi['defaults']): { field: string; valueJson: string }[] {
  return (v ?? []).flatMap((f) =>
    f.field && f.value !== undefined ? [{ field: f.field, valueJson: stableStringify(f.value) }] : [],
  );
}

/** `{field, expression}` lists as the IR carries them (the snapshot check compiles each expression). */
export function fieldTransformations(
  v: readonly { field?: string; expression?: string }[] | undefined,
): { field: string; expression: string }[] {
  return (v ?? []).flatMap(({ field, expression }) => (field && expression ? [{ field, expression }] : []));
}

function messages(v: NonNullable<BackendAi['prompt']>['prepend']): { role: string; content: string }[] {
  return (v ?? []).flatMap(({ role, content }) => (role ? [{ role, content }] : []));
}

/**
 * A vendor settings object (`<vendor>.*` of an LLM provider, or a GwModel's `azure`/`vertexai`/`bedrock`/
 * `custom`) as the typed IR settings the proxy reads; only the fields that are set (the proxy fills defaults).
 */
export function aiProviderSettings(s: VendorSettings): AiProviderSettingsInput {
  const out: AiProviderSettingsInput = {};
  for (const field of STRING_SETTINGS) {
    const v = s[field];
    if (v) out[field] = v;
  }
  // The endpoint may be written with a scheme or a path; only the host name addresses the vendor.
  if (out.endpoint) out.endpoint = out.endpoint.replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '');
  const identifier = s.guardrail?.identifier,
    version = s.guardrail?.version;
  if (identifier && version) out.guardrail = { identifier, version };
  const formats = (s.formats ?? []).flatMap((f) =>
    f.format ? [{ format: f.format, ...(f.path ? { path: f.path } : {}) }] : [],
  );
  if (formats.length > 0) out.formats = formats;
  const moderation = s.moderation;
  if (moderation) {
    const policy = moderation.policy;
    out.moderation = {
      model: moderation.model ?? 'omni-moderation-latest',
      input: MODERATION_MODES[policy?.input?.mode ?? ''] ?? 'MODERATION_OFF',
      output: MODERATION_MODES[policy?.output?.mode ?? ''] ?? 'MODERATION_OFF',
    };
  }
  return out;
}

/** Vendor settings copied as they are, by the same name, into the IR settings. */
const STRING_SETTINGS = [
  'model',
  'endpoint',
  'apiVersion',
  'deploymentName',
  'region',
  'resourceName',
  'resourceType',
  'projectName',
  'projectId',
  'providerOverride',
] as const;

const MODERATION_MODES: Record<string, 'MODERATION_SCORE' | 'MODERATION_BLOCK'> = {
  Score: 'MODERATION_SCORE',
  Block: 'MODERATION_BLOCK',
};
