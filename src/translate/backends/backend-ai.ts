// LLM settings of one route → `ai` backend edge: the winning `backend.auth`, `backend.ai` and
// `backend.tls` values of each provider (edge policy, then the provider's own and sectionName-targeted
// ones) with the credential Secret and TLS references resolved. Pure: every read goes through the context. Messages name the field and the object,
// never the key.
import type { FieldOrigin } from '../policies/policy-merge.js';
import { backendTls } from './backend-tls.js';
import type { Ctx } from '../objects/context.js';
import { secretData } from '../policies/policy-secrets.js';
import type {
  AiCredentialInput,
  AiEdgeInput,
  AiProviderEdgeInput,
  AiProviderSettingsInput,
  AiRouteTypeInput,
  RefusalInput,
} from '../../ir/types.js';
import { cloudCredential } from './cloud-credentials.js';
import { arr, rec, recs, stableStringify, str, type Rec } from '../objects/read.js';
import { parseDurationMs } from '../../ir/duration.js';

/** Merged policy fields of an edge or of one provider on it. */
export interface MergedFields {
  fields: Record<string, unknown>;
  provenance: Record<string, FieldOrigin>;
}

export type BackendAiResult = { ok: true; ai?: AiEdgeInput } | { ok: false; message: string };

/** `backend.ai` fields this release does not apply, with whether skipping one would weaken security. */
const AI_NOT_APPLIED: [field: string, security: boolean, reason: string][] = [
  ['transformations', false, 'CEL field transformations of LLM requests are not applied by this release'],
  [
    'finalTransformations',
    false,
    'CEL field transformations after provider conversion are not applied by this release',
  ],
  ['promptCaching', false, 'automatic prompt caching is not applied by this release'],
];

/**
 * Pure: the `backend.ai` fields of one merged edge (or provider) policy this release does not apply, as
 * refusals naming the object that set them; the IR AiEdge carries them and the proxy refuses the edge.
 */
export function aiEdgeRefusals(m: MergedFields): RefusalInput[] {
  const ai = rec(m.fields['backend.ai']);
  if (!ai) return [];
  const source = m.provenance['backend.ai']?.source ?? '';
  return AI_NOT_APPLIED.filter(([field]) => ai[field] !== undefined).map(([field, security, reason]) => ({
    field: `backend.ai.${field}`,
    source,
    reason,
    security,
  }));
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

// Kinds of BackendAuth that need machinery (token exchange, request signing) the LLM proxy does not have.
const UNSUPPORTED_AUTH = ['oauthTokenExchange', 'crossAppAccess', 'jwtSign'];

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
): BackendAiResult {
  const providerEdges: Record<string, AiProviderEdgeInput> = {};
  const routeTypes: Record<string, AiRouteTypeInput> = {};
  const out: AiEdgeInput = { providers: providerEdges, routes: routeTypes };
  const refusals = new Map<string, RefusalInput>();
  for (const r of aiEdgeRefusals(edge)) refusals.set(`${r.source} ${r.field}`, r);
  let any = false;
  for (const name of providers) {
    const m = perProvider[name] ?? edge;
    const p = providerEdge(ctx, m);
    if (typeof p === 'string') return { ok: false, message: `provider ${name}: ${p}` };
    providerEdges[name] = p;
    for (const r of aiEdgeRefusals(m)) refusals.set(`${r.source} ${r.field}`, r);
    any ||=
      p.credential !== undefined ||
      p.tls !== undefined ||
      p.requestTimeoutMs !== undefined ||
      Object.keys(p.modelAliases ?? {}).length > 0 ||
      [p.defaults, p.overrides, p.promptPrepend, p.promptAppend].some((list) => (list?.length ?? 0) > 0);
  }
  const routes = rec(rec(edge.fields['backend.ai'])?.routes) ?? {};
  for (const suffix of Object.keys(routes).sort()) {
    const type = ROUTE_TYPES[str(routes[suffix]) ?? ''];
    if (type) routeTypes[suffix] = type;
  }
  any ||= Object.keys(routeTypes).length > 0;
  if (refusals.size > 0) {
    out.refusals = [...refusals.keys()].sort().map((k) => refusals.get(k) as RefusalInput);
    any = true;
  }
  return any ? { ok: true, ai: out } : { ok: true };
}

function providerEdge(ctx: Ctx, m: MergedFields): AiProviderEdgeInput | string {
  const ai = rec(m.fields['backend.ai']) ?? {};
  const modelAliases: Record<string, string> = {};
  const out: AiProviderEdgeInput = {
    modelAliases,
    defaults: fieldValues(ai.defaults),
    overrides: fieldValues(ai.overrides),
    promptPrepend: messages(rec(ai.prompt)?.prepend),
    promptAppend: messages(rec(ai.prompt)?.append),
  };
  const aliases = rec(ai.modelAliases) ?? {};
  for (const k of Object.keys(aliases).sort()) {
    const v = str(aliases[k]);
    if (v) modelAliases[k] = v;
  }
  const tls = backendTls(ctx, m);
  if (!tls.ok) return tls.message;
  if (tls.tls) out.tls = tls.tls;
  const timeout = str(rec(m.fields['backend.http'])?.requestTimeout);
  const timeoutMs = timeout ? (parseDurationMs(timeout) ?? 0) : 0;
  if (timeoutMs > 0) out.requestTimeoutMs = timeoutMs;
  const auth = rec(m.fields['backend.auth']);
  if (!auth) return out;
  const source = m.provenance['backend.auth']?.source ?? '';
  const at = (field: string) => `${source ? `${source} ` : ''}backend.auth.${field}`;
  const credential = aiCredential(ctx, auth, namespaceOfSource(source), source, at);
  if (typeof credential === 'string') return credential;
  if (credential) {
    out.credential = credential;
    return out;
  }
  const kind = UNSUPPORTED_AUTH.find((k) => auth[k] !== undefined);
  return kind
    ? `${at(kind)}: is not supported for AI backends; use key, secretRef, passthrough, aws, azure or gcp`
    : out;
}

/**
 * The upstream credential an auth object (BackendAuth or ModelBackendAuth) sets with `key`, `secretRef`
 * (a Secret in `ns`, default key `Authorization`), `passthrough` or a cloud kind (`aws`, `azure`,
 * `gcp`: cloud-credentials.ts); undefined when it sets none of them;
 * a string says why it cannot be resolved (`at(field)` names the field; the message never holds the key).
 */
export function aiCredential(
  ctx: Ctx,
  auth: Rec,
  ns: string,
  source: string,
  at: (field: string) => string,
): AiCredentialInput | string | undefined {
  const key = str(auth.key);
  if (key !== undefined) return { kind: 'key', key, source };
  const ref = rec(auth.secretRef);
  if (ref) {
    const name = str(ref.name) ?? '',
      dataKey = str(ref.key) ?? 'Authorization';
    const data = secretData(ctx, ns, name);
    if (!data) return `${at('secretRef')}: Secret ${ns}/${name} does not exist`;
    const value = (data[dataKey] ?? '').trim();
    if (!value) return `${at('secretRef')}: Secret ${ns}/${name} has no non-empty key ${dataKey}`;
    return { kind: 'key', key: value, source: `Secret ${ns}/${name} key ${dataKey}` };
  }
  if (rec(auth.passthrough)) return { kind: 'passthrough', passthrough: true, source };
  return cloudCredential(ctx, auth, ns, source, at);
}

function fieldValues(v: unknown): { field: string; valueJson: string }[] {
  return recs(v).flatMap((f: Rec) => {
    const field = str(f.field);
    return field && f.value !== undefined ? [{ field, valueJson: stableStringify(f.value) }] : [];
  });
}

function messages(v: unknown): { role: string; content: string }[] {
  return arr(v).flatMap((x) => {
    const m = rec(x);
    const role = str(m?.role),
      content = str(m?.content);
    return role && content !== undefined ? [{ role, content }] : [];
  });
}

/** `GwPolicy ns/name`, `GwBackend ns/name provider p` → `ns`: Secrets are read from the setting object's namespace. */
export function namespaceOfSource(source: string): string {
  return /^\S+ ([^/\s]+)\//.exec(source)?.[1] ?? '';
}

/**
 * A vendor settings object (`<vendor>.*` of an LLM provider, or a GwModel's `azure`/`vertexai`/`bedrock`/
 * `custom`) as the typed IR settings the proxy reads; only the fields that are set (the proxy fills defaults).
 */
export function aiProviderSettings(s: Rec): AiProviderSettingsInput {
  const out: AiProviderSettingsInput = {};
  const strings = {
    model: 'model',
    endpoint: 'endpoint',
    apiVersion: 'apiVersion',
    deploymentName: 'deploymentName',
    region: 'region',
    resourceName: 'resourceName',
    resourceType: 'resourceType',
    projectName: 'projectName',
    projectId: 'projectId',
    providerOverride: 'providerOverride',
  } as const;
  for (const [k, field] of Object.entries(strings)) {
    const v = str(s[field]);
    if (v) out[k as keyof typeof strings] = v;
  }
  // The endpoint may be written with a scheme or a path; only the host name addresses the vendor.
  if (out.endpoint) out.endpoint = out.endpoint.replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '');
  const g = rec(s.guardrail);
  const identifier = str(g?.identifier),
    version = str(g?.version);
  if (identifier && version) out.guardrail = { identifier, version };
  const formats = recs(s.formats).flatMap((f) =>
    str(f.format) ? [{ format: str(f.format) ?? '', ...(str(f.path) ? { path: str(f.path) } : {}) }] : [],
  );
  if (formats.length > 0) out.formats = formats;
  const moderation = rec(s.moderation);
  if (moderation) {
    const policy = rec(moderation.policy);
    out.moderation = {
      model: str(moderation.model) ?? 'omni-moderation-latest',
      input: MODERATION_MODES[str(rec(policy?.input)?.mode) ?? ''] ?? 'MODERATION_OFF',
      output: MODERATION_MODES[str(rec(policy?.output)?.mode) ?? ''] ?? 'MODERATION_OFF',
    };
  }
  return out;
}

const MODERATION_MODES: Record<string, 'MODERATION_SCORE' | 'MODERATION_BLOCK'> = {
  Score: 'MODERATION_SCORE',
  Block: 'MODERATION_BLOCK',
};
