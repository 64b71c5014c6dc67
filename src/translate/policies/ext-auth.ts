// GwPolicy `traffic.extAuth` → the typed IR the proxy enforces (an external authorization service asked
// over HTTP or Envoy's gRPC ext_authz), or why it cannot be enforced as written: the routes it reaches then
// refuse their requests.
import type { ExtAuthPolicy } from '../../api/index.js';
import type { BackendRef } from '../../api/refs.js';
import type { FieldOrigin } from './policy-merge.js';
import type { IrRefusal } from '../../coverage/effective.js';
import type { EffectiveFields } from './policy-sections.js';
import { celCompileProblem, expressionVariables } from '../../cel/data-plane.js';
import { read, readGw, type Ctx } from '../objects/context.js';
import { serviceHost } from '../backends/backends.js';
import type { BackendTlsInput, ExtAuthorizationInput } from '../../ir/types.js';
import { backendTls } from '../backends/backend-tls.js';
import { parseByteSize } from './byte-size.js';
import { referenceAllowed } from '../objects/refs.js';
import { parseDurationMs } from '../../ir/duration.js';
import { GROUP, nameKey } from '../objects/types.js';

/** A `backendRef` of a policy field; listeners/telemetry.ts hands one over through rec(), so any member may be absent. */
export type PolicyBackendRef = Partial<BackendRef>;

/** The base URL of the service a policy field's `backendRef` names, or why it cannot be used. */
export type PolicyBackendResolver = (
  field: string,
  ref: PolicyBackendRef,
) => { url: string; tls?: BackendTlsInput } | { problem: string; reason: RefReason };
type RefReason = 'RefNotPermitted' | 'BackendNotFound' | 'InvalidKind';

/** One plain extAuth (a `conditional` entry's policy, or the whole setting without `conditional`). */
type PlainExtAuth = Omit<ExtAuthPolicy, 'conditional'>;
type Conditional = NonNullable<ExtAuthPolicy['conditional']>;

const lower = (v: readonly string[] | undefined): string[] => (v ?? []).map((h) => h.toLowerCase());

function celHeaders(m: Record<string, string>, lowerCase = true): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(m).sort()) {
    const v = m[k];
    if (v !== undefined) out[lowerCase ? k.toLowerCase() : k] = v;
  }
  return out;
}

/** The CEL expressions of one plain extAuth the proxy evaluates, as [path under traffic.extAuth, source]. */
function plainExpressions(e: PlainExtAuth): [string, string][] {
  const http = e.http ?? {};
  const out: [string, string][] = [];
  if (http.path !== undefined) out.push(['http.path', http.path]);
  if (http.redirect !== undefined) out.push(['http.redirect', http.redirect]);
  if (http.body !== undefined) out.push(['http.body', http.body]);
  const sorted = (m: Record<string, string> | undefined) =>
    Object.entries(m ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [name, source] of sorted(http.addRequestHeaders)) out.push([`http.addRequestHeaders.${name}`, source]);
  for (const [name, source] of sorted(e.grpc?.requestMetadata)) out.push([`grpc.requestMetadata.${name}`, source]);
  (e.cache?.key ?? []).forEach((source, i) => {
    out.push([`cache.key[${i}]`, source]);
  });
  return out;
}

/**
 * Every expression of `traffic.extAuth` the proxy would evaluate that does not compile with the proxy's own
 * CEL environment (path under traffic.extAuth, compiler message). Fields the proxy does not apply yet (grpc,
 * http.redirect/body/responseMetadata) are only syntax-checked by the schema: their variables are not defined.
 */
export function extAuthCelProblems(e: ExtAuthPolicy): { path: string; message: string }[] {
  const expressions =
    e.conditional === undefined
      ? plainExpressions(e)
      : e.conditional.flatMap((entry, i): [string, string][] => {
          const condition = entry.condition;
          const own: [string, string][] = condition !== undefined ? [[`conditional[${i}].condition`, condition]] : [];
          return [
            ...own,
            ...plainExpressions(entry.policy).map(([p, s]): [string, string] => [`conditional[${i}].policy.${p}`, s]),
          ];
        });
  const responseMetadata = (e.conditional ?? [{ policy: e }]).flatMap((entry, i) =>
    Object.entries(entry.policy.http?.responseMetadata ?? {}).map(([name, source]): [string, string] => [
      `${e.conditional ? `conditional[${i}].policy.` : ''}http.responseMetadata.${name}`,
      source,
    ]),
  );
  const withResponse = responseMetadata.flatMap(([path, source]) => {
    const message = celCompileProblem(source, [...expressionVariables.extAuth, 'response']);
    return message === undefined ? [] : [{ path, message }];
  });
  return withResponse.concat(
    expressions.flatMap(([path, source]) => {
      const message = celCompileProblem(source, expressionVariables.extAuth);
      return message === undefined ? [] : [{ path, message }];
    }),
  );
}

/**
 * The typed form, or why the proxy cannot enforce it. Expressions pass as text even when they do not compile:
 * the proxy then refuses the route naming the expression, and the policy's status says Invalid (extAuthCelProblems).
 */
export function toExtAuth(e: ExtAuthPolicy, resolve: PolicyBackendResolver): ExtAuthorizationInput | string {
  if (e.conditional !== undefined) return toConditional(e.conditional, resolve);
  const http = e.http ?? {};
  let url = e.url;
  if (url !== undefined && !(e.grpc ? /^(grpcs?|https?):\/\//i : /^https?:\/\//i).test(url))
    return e.grpc
      ? 'url: a gRPC service needs a grpc://, grpcs://, http:// or https:// url'
      : 'url: only http:// and https:// services are supported over HTTP (set grpc for a gRPC service)';
  const ref = e.backendRef;
  let tls: BackendTlsInput | undefined;
  if (ref) {
    const r = resolve('traffic.extAuth', ref);
    if ('problem' in r) return `backendRef: ${r.problem}`;
    url = r.tls ? r.url.replace(/^http:/, 'https:') : r.url;
    tls = r.tls;
  }
  if (url === undefined) return 'one of url and backendRef is needed';
  const out: ExtAuthorizationInput = {
    url: url.replace(/\/+$/, ''),
    failOpen: e.failureMode === 'FailOpen',
    allowedRequestHeaders:
      http.allowedRequestHeaders !== undefined ? lower(http.allowedRequestHeaders) : ['authorization'],
    addRequestHeaders: celHeaders(http.addRequestHeaders ?? {}),
    allowedResponseHeaders: lower(http.allowedResponseHeaders),
    pathExpression: http.path ?? '',
    forwardBody: false,
    maxBodyBytes: 0,
    conditional: [],
    redirectExpression: http.redirect ?? '',
    bodyExpression: http.body ?? '',
    responseMetadata: celHeaders(http.responseMetadata ?? {}, false),
    ...(e.grpc
      ? {
          grpc: {
            contextExtensions: { ...(e.grpc.contextExtensions ?? {}) },
            requestMetadata: { ...(e.grpc.requestMetadata ?? {}) },
          },
        }
      : {}),
    ...(tls ? { tls } : {}),
  };
  const cache = e.cache;
  if (cache) {
    const ttlMs = parseDurationMs(cache.ttl);
    if (ttlMs === undefined || ttlMs > 0xffffffff)
      return `cache.ttl: must be a duration such as 30s, got ${JSON.stringify(cache.ttl)}`;
    out.cache = { key: [...cache.key], ttlMs, maxEntries: cache.maxEntries ?? 10000 };
  }
  const body = e.forwardBody;
  if (body) {
    const max = parseByteSize(body.maxSize);
    if (max === undefined || max > 0xffffffff)
      return `forwardBody.maxSize: must be a byte size such as 64Ki, got ${JSON.stringify(body.maxSize)}`;
    out.forwardBody = true;
    out.maxBodyBytes = max;
  }
  return out;
}

/** Each branch as a plain extAuth; one that cannot be enforced makes the whole list unenforced (never a silent skip). */
function toConditional(list: Conditional, resolve: PolicyBackendResolver): ExtAuthorizationInput | string {
  const conditional: ExtAuthorizationInput['conditional'] = [];
  for (const [i, entry] of list.entries()) {
    const policy = toExtAuth(entry.policy, resolve);
    if (typeof policy === 'string') return `conditional[${i}].policy.${policy}`;
    conditional.push({ condition: entry.condition ?? '', policy });
  }
  return {
    url: '',
    failOpen: false,
    allowedRequestHeaders: [],
    addRequestHeaders: {},
    allowedResponseHeaders: [],
    pathExpression: '',
    forwardBody: false,
    maxBodyBytes: 0,
    conditional,
    redirectExpression: '',
    bodyExpression: '',
    responseMetadata: {},
  };
}

/**
 * Resolves a backendRef of a GwPolicy field against the translation context: a Service (its cluster DNS name
 * and port) or a GwBackend with a `static` host; across namespaces only with a ReferenceGrant.
 */
export function policyBackendResolver(ctx: Ctx, provenance: Record<string, FieldOrigin>): PolicyBackendResolver {
  return (field, ref) => {
    // A GwPolicy's field, or a GwBackend's or GwModel's own `policies`: references start in its namespace.
    const origin = /^(GwPolicy|GwBackend|GwModel) ([^/\s]+)\//.exec(provenance[field]?.source ?? '');
    const from = origin?.[2];
    if (from === undefined) return { problem: 'the policy that set it is not known', reason: 'BackendNotFound' };
    const fromKind = origin?.[1] ?? 'GwPolicy';
    const group = ref.group ?? '';
    const kind = ref.kind ?? 'Service';
    const name = ref.name ?? '';
    const ns = ref.namespace ?? from;
    if (
      !referenceAllowed(ctx, { group: GROUP.gw, kind: fromKind, namespace: from }, { group, kind, namespace: ns, name })
    ) {
      return {
        problem: `${kind} ${ns}/${name} is in another namespace and no ReferenceGrant allows it`,
        reason: 'RefNotPermitted',
      };
    }
    if (group === GROUP.core && kind === 'Service') {
      if (!read(ctx, 'Service', nameKey(ns, name)))
        return { problem: `Service ${ns}/${name} does not exist`, reason: 'BackendNotFound' };
      return { url: `http://${serviceHost(name, ns)}:${ref.port ?? 0}` };
    }
    if (group === GROUP.gw && kind === 'GwBackend') {
      const spec = readGw(ctx, 'GwBackend', nameKey(ns, name))?.spec;
      const st = spec?.static;
      if (!st)
        return {
          problem: `GwBackend ${ns}/${name} does not exist or is not a static backend`,
          reason: 'BackendNotFound',
        };
      const url = `http://${st.host}:${ref.port ?? st.port}`;
      const tlsField = spec.policies?.tls;
      if (!tlsField) return { url };
      // The backend's own TLS settings: the service is dialled over TLS with its CA and client certificate.
      const source = `GwBackend ${ns}/${name}`;
      const tls = backendTls(ctx, {
        fields: { 'backend.tls': tlsField },
        provenance: { 'backend.tls': { source } as FieldOrigin },
      });
      if (!tls.ok) return { problem: tls.message, reason: 'BackendNotFound' };
      // The gRPC and HTTP clients of policy services dial with a CA and a client certificate only: a workload
      // identity they would not present nor check is refused, never dialled with public roots instead.
      if (tls.tls?.verifySubjectAltNames?.length)
        return {
          problem: `${source} policies.tls.verifySubjectAltNames is not applied by the clients of policy services (they check the host name or sni)`,
          reason: 'InvalidKind',
        };
      if (tls.tls?.workloadIdentity)
        return {
          problem: `${source} policies.tls.certificateSource: SPIFFE is not supported for a policy service (external authorization, processing, rate limits, JWKS)`,
          reason: 'InvalidKind',
        };
      return { url, ...(tls.tls ? { tls: tls.tls } : {}) };
    }
    return {
      problem: `${kind}${group ? `.${group}` : ''} is not a supported kind; use a Service or a GwBackend`,
      reason: 'InvalidKind',
    };
  };
}

/** Without the translation context no backendRef resolves: the proxy refuses the route rather than guess. */
export const noBackends: PolicyBackendResolver = () => ({
  problem: 'cannot be resolved here',
  reason: 'BackendNotFound',
});

/** For policy status, judged apart from any route: a backendRef's problems show on the routes (ResolvedRefs). */
export const anyBackend: PolicyBackendResolver = () => ({ url: 'http://resolved-per-route' });

/** Why the effective `traffic.extAuth` backendRef cannot be resolved, as a route ResolvedRefs reason and message. */
export function extAuthRefProblem(
  fields: EffectiveFields,
  resolve: PolicyBackendResolver,
): { reason: string; message: string } | undefined {
  const ext = fields['traffic.extAuth'];
  const refs: [string, BackendRef | undefined][] =
    ext?.conditional !== undefined
      ? ext.conditional.map((c, i) => [`conditional[${i}].policy.backendRef`, c.policy.backendRef])
      : [['backendRef', ext?.backendRef]];
  for (const [path, ref] of refs) {
    const r = ref && resolve('traffic.extAuth', ref);
    if (r && 'problem' in r) return { reason: r.reason, message: `traffic.extAuth.${path}: ${r.problem}` };
  }
  return undefined;
}

/** One route → backend edge as the routes translator built it (merged fields as canonical JSON text). */
interface ExtAuthEdge {
  weight?: number;
  policy?: { fields?: Record<string, string>; provenance?: Record<string, { source?: string }> } | null;
  targetPolicies?: Record<
    string,
    { fields?: Record<string, string>; provenance?: Record<string, { source?: string }> }
  >;
  backend: string;
  /** On an edge to an `ai` backend: a provider's own setting is written on its entry. */
  ai?: { providers?: Record<string, { extAuthorization?: ExtAuthorizationInput | null }> } | null;
  /** The edge's own setting, written when the route's edges differ. */
  extAuthorization?: ExtAuthorizationInput | null;
  /** MCP target name → its own setting, written when the edge's targets differ. */
  targetExtAuthorization?: Record<string, ExtAuthorizationInput>;
}

/** The provider names of an IR backend; undefined for any backend but `ai`. */
export type AiProvidersOf = (backend: string) => string[] | undefined;

/** The backend-level extAuth of a route: its typed form, or why it cannot be enforced (the route then answers 503). */
export interface BackendExtAuth {
  typed?: ExtAuthorizationInput;
  refusal?: IrRefusal;
}

interface Setting {
  text?: string;
  source: string;
}

type Refuse = (source: string, reason: string) => BackendExtAuth;

const settingOf = (p: ExtAuthEdge['policy']): Setting => ({
  text: p?.fields?.['backend.extAuth'],
  source: p?.provenance?.['backend.extAuth']?.source ?? '',
});

/**
 * `backend.extAuth` (a GwPolicy's `backend`, a GwBackend's `policies`) of a route's edges. A setting every live
 * edge (and every MCP target / AI provider on it) shares is asked once per request after routing. When they
 * differ, each edge carries its own: an HTTP edge's is asked once the weighted pick chose it, an MCP target's
 * before each call to it, an AI provider's before each try of it. A setting that cannot be compiled refuses the route.
 */
export function backendExtAuth(edges: readonly ExtAuthEdge[], ctx: Ctx, providersOf: AiProvidersOf): BackendExtAuth {
  // A lone edge with weight 0 is served as weight 1 (the IR's rule): its setting counts.
  const live = edges.length === 1 ? edges : edges.filter((e) => (e.weight ?? 1) > 0);
  const seen = live.map((e) => settingOf(e.policy));
  // A target / provider with merged policies of its own carries the edge's setting too unless it replaces it.
  const perTarget = live.flatMap((e) => Object.values(e.targetPolicies ?? {}).map(settingOf));
  const first = [...seen, ...perTarget].find((s) => s.text !== undefined);
  const refuse: Refuse = (source, reason) => ({
    refusal: { field: 'spec.backend.extAuth', source, reason, security: true },
  });
  if (!first?.text) return {};
  const texts = new Set([...seen, ...perTarget].map((s) => s.text ?? ''));
  if (texts.size === 1) return typedOrRefusal(first, ctx, refuse);
  for (const edge of live) {
    const providers = providersOf(edge.backend);
    const checked = providers ? perProvider(edge, providers, ctx, refuse) : perEdge(edge, ctx, refuse);
    if (checked.refusal) return checked;
  }
  return {};
}

/** Writes the edge's own setting, and each MCP target's that differs from it, on the edge. */
function perEdge(edge: ExtAuthEdge, ctx: Ctx, refuse: Refuse): BackendExtAuth {
  const own = settingOf(edge.policy);
  if (own.text !== undefined) {
    const checked = typedOrRefusal(own, ctx, (source, reason) => refuse(source, `backend ${edge.backend}: ${reason}`));
    if (!checked.typed) return checked;
    edge.extAuthorization = checked.typed;
  }
  for (const name of Object.keys(edge.targetPolicies ?? {}).sort()) {
    const setting = settingOf(edge.targetPolicies?.[name]);
    // No setting of its own: the proxy asks the edge's (the stricter reading).
    if (setting.text === undefined || setting.text === own.text) continue;
    const checked = typedOrRefusal(setting, ctx, (source, reason) => refuse(source, `MCP target ${name}: ${reason}`));
    if (!checked.typed) return checked;
    (edge.targetExtAuthorization ??= {})[name] = checked.typed;
  }
  return {};
}

/** Writes each provider's own setting on the `ai` edge; one of them unusable means the route is refused. */
function perProvider(edge: ExtAuthEdge, names: readonly string[], ctx: Ctx, refuse: Refuse): BackendExtAuth {
  const edgeSetting = settingOf(edge.policy);
  for (const name of [...names].sort()) {
    const own = edge.targetPolicies?.[name];
    const setting = own ? settingOf(own) : edgeSetting;
    if (setting.text === undefined) continue;
    const checked = typedOrRefusal(setting, ctx, (source, reason) => refuse(source, `provider ${name}: ${reason}`));
    if (checked.refusal) return checked;
    if (!checked.typed) continue;
    // An edge without provider settings has no AiEdge yet; an entry with only this field changes nothing else.
    const providers = ((edge.ai ??= {}).providers ??= {});
    (providers[name] ??= {}).extAuthorization = checked.typed;
  }
  return {};
}

function typedOrRefusal(setting: Setting, ctx: Ctx, refuse: Refuse): BackendExtAuth {
  const parsed = JSON.parse(setting.text ?? '{}') as ExtAuthPolicy;
  const typed = toExtAuth(
    parsed,
    policyBackendResolver(ctx, { 'traffic.extAuth': { source: setting.source } as FieldOrigin }),
  );
  if (typeof typed === 'string') return refuse(setting.source, typed);
  return { typed };
}
