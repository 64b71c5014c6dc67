// Maps effective policy fields onto the typed IR Policy the proxy runtime reads. A field without a typed
// home is refused (src/coverage); RouteInput.effective is provenance for `gw explain`, never sent to proxies.
import type { TrafficPolicy } from '../../api/index.js';
import type {
  ApiKeyAuthenticationInput,
  AuthorizationInput,
  BasicAuthenticationInput,
  CorsInput,
  JwtAuthenticationInput,
  McpAuthenticationInput,
  PolicyInput,
} from '../../ir/types.js';
import { combinedRules, resourceMetadataOf, type BackendMcpSecurity } from './backend-mcp-auth.js';
import { anyBackend, noBackends, toExtAuth, type PolicyBackendResolver } from './ext-auth.js';
import { toExtProc } from './ext-proc.js';
import { toGlobalRateLimit } from './global-rate-limit.js';
import { parseByteSize } from './byte-size.js';
import { parseDurationMs } from '../../ir/duration.js';
import { noSecrets, type PolicySecretReader } from './policy-secrets.js';
import { apiKeyEntries } from './api-keys.js';
import { anyJwksBackend, noJwksBackends, type JwksBackendResolver } from './jwks-backend.js';
import { rec } from '../objects/read.js';
import { celCompileProblem } from '../../cel/data-plane.js';
import type { IrRefusal } from '../../coverage/effective.js';
import type { AuthorizationSpec } from '../objects/gw-types.js';
import { sectionOf, type EffectiveFields } from './policy-sections.js';

type Traffic<K extends keyof TrafficPolicy> = NonNullable<TrafficPolicy[K]>;
type Jwt = Traffic<'jwtAuthentication'>;
type Jwks = Jwt['providers'][number]['jwks'];
type Location = NonNullable<Jwt['location']>;
type ApiKey = Traffic<'apiKeyAuthentication'>;
type Basic = Traffic<'basicAuthentication'>;

export function typedPolicy(
  fields: EffectiveFields,
  readSecret: PolicySecretReader = noSecrets,
  resolveBackend: PolicyBackendResolver = noBackends,
  backendMcp: BackendMcpSecurity = { refusals: [] },
  jwksBackend: JwksBackendResolver = noJwksBackends,
): PolicyInput {
  const out: PolicyInput = {};
  const cors = fields['traffic.cors'];
  if (cors) out.cors = toCors(cors);
  const authz = fields['traffic.authorization'];
  if (authz) out.authorization = toAuthorization(authz);
  const jwt = fields['traffic.jwtAuthentication'];
  if (jwt?.mcp) out.mcpAuthentication = toMcpAuth(jwt, jwksBackend);
  else if (jwt) {
    const generic = toJwtAuth(jwt, jwksBackend);
    if (typeof generic !== 'string') out.jwtAuthentication = generic;
  }
  const basic = fields['traffic.basicAuthentication'];
  const basicTyped = basic && toBasicAuth(basic, readSecret);
  if (basicTyped && typeof basicTyped !== 'string') out.basicAuthentication = basicTyped;
  const apiKey = fields['traffic.apiKeyAuthentication'];
  const apiKeyTyped = apiKey && toApiKeyAuth(apiKey, readSecret);
  if (apiKeyTyped && typeof apiKeyTyped !== 'string') out.apiKeyAuthentication = apiKeyTyped;
  const ext = fields['traffic.extAuth'];
  const extTyped = ext && toExtAuth(ext, resolveBackend);
  if (extTyped && typeof extTyped !== 'string') out.extAuthorization = extTyped;
  const proc = fields['traffic.extProc'];
  const procTyped = proc && toExtProc(proc, resolveBackend);
  if (procTyped && typeof procTyped !== 'string') out.extProcessing = procTyped;
  const global = fields['traffic.rateLimit']?.global;
  const globalTyped = global && toGlobalRateLimit(global, resolveBackend);
  if (globalTyped && typeof globalTyped !== 'string') out.globalRateLimit = globalTyped;
  const max = parseByteSize(fields['traffic.buffer']?.request?.maxBytes);
  if (max !== undefined) out.maxRequestBytes = max;
  withBackendMcp(out, fields, backendMcp);
  return out;
}

/** backend.mcp authentication / authorization join the route's own, for the proxy's one check and one evaluation. */
function withBackendMcp(out: PolicyInput, fields: EffectiveFields, b: BackendMcpSecurity): void {
  if (b.authorization) {
    const backendRules = toAuthorization(b.authorization.value).rules ?? [];
    out.authorization = { rules: combinedRules(out.authorization?.rules ?? [], backendRules) };
  }
  // With a route-level credential check too, the route is refused (authRefusals): never two checks, never one skipped.
  const routeAuth = AUTH_METHODS.some((f) => fields[`traffic.${f}`] !== undefined);
  if (b.typed && !routeAuth) out.mcpAuthentication = b.typed;
}

// A policy's cors and authorization values reach every rule it covers: their IR form is a pure function
// of the stored value (never mutated in place), so it is built once per value and shared, frozen.
const corsOf = new WeakMap<object, CorsInput>();
const authorizationOf = new WeakMap<object, AuthorizationInput>();

function toCors(c: Traffic<'cors'>): CorsInput {
  let out = corsOf.get(c);
  if (!out)
    corsOf.set(
      c,
      (out = frozen({
        allowOrigins: [...(c.allowOrigins ?? [])],
        allowHeaders: [...(c.allowHeaders ?? [])],
        exposeHeaders: [...(c.exposeHeaders ?? [])],
        allowMethods: [...(c.allowMethods ?? [])],
        maxAge: c.maxAge ?? 0,
        allowCredentials: c.allowCredentials === true,
      })),
    );
  return out;
}

export function toAuthorization(a: AuthorizationSpec): AuthorizationInput {
  let out = authorizationOf.get(a);
  if (!out) {
    const action = (a.action ?? 'Allow').toUpperCase() as 'ALLOW' | 'DENY' | 'REQUIRE';
    authorizationOf.set(a, (out = frozen({ rules: [{ expressions: [...a.policy.matchExpressions], action }] })));
  }
  return out;
}

/** `v` and everything in it, frozen: a shared IR part that someone tried to change would throw. */
function frozen<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    for (const x of Object.values(v)) frozen(x);
    Object.freeze(v);
  }
  return v;
}

/** `jwks.remote.cacheDuration` in whole seconds (at least 1); 0 (unset) leaves the proxy's 5-minute default. */
function jwksCacheSeconds(jwks: Jwks | undefined): number {
  const text = jwks?.remote?.cacheDuration;
  const ms = text === undefined ? undefined : parseDurationMs(text);
  return ms === undefined ? 0 : Math.max(1, Math.ceil(ms / 1000));
}

function toMcpAuth(j: Jwt, jwksBackend: JwksBackendResolver): McpAuthenticationInput {
  const mcp = j.mcp ?? {};
  const p = j.providers[0];
  const jwks = p?.jwks;
  // Keys through a backendRef: the URL and TLS as for generic JWTs; one that does not resolve refuses the route.
  const ref = jwks?.remote?.backendRef;
  const viaRef = ref ? jwksBackend(ref, jwks?.remote?.path) : undefined;
  const out: McpAuthenticationInput = {
    mode: (j.mode ?? 'Strict').toUpperCase() as McpAuthenticationInput['mode'],
    issuer: p?.issuer ?? '',
    audiences: [...(p?.audiences ?? [])],
    provider: (mcp.provider ?? '').toUpperCase() as McpAuthenticationInput['provider'],
    clientId: mcp.clientId ?? '',
    clientSecret: '',
    jwksUrl: viaRef && 'url' in viaRef ? viaRef.url : (jwks?.remote?.url ?? ''),
    jwksInline: jwks?.inline ?? '',
    jwksCacheSeconds: jwksCacheSeconds(jwks),
    ...(viaRef && 'tls' in viaRef && viaRef.tls ? { jwksTls: viaRef.tls } : {}),
  };
  if (mcp.resourceMetadata) out.resourceMetadata = resourceMetadataOf(mcp.resourceMetadata);
  // Providers and location read as for generic JWTs; when they cannot be enforced the route is refused (mcpJwtUnsupported).
  const generic = toJwtAuth(j, jwksBackend);
  if (typeof generic !== 'string') {
    out.moreProviders = (generic.providers ?? []).slice(1);
    if (generic.location) out.location = generic.location;
  }
  return out;
}

/**
 * Generic JWT authentication, or why the proxy could not enforce it as written (a provider whose keys come
 * from a backendRef, a CEL `expression` location): the route then keeps only the effective field, and the
 * proxy refuses its requests (fail closed) instead of checking a weaker subset.
 */
function toJwtAuth(j: Jwt, jwksBackend: JwksBackendResolver = noJwksBackends): JwtAuthenticationInput | string {
  const providers: JwtAuthenticationInput['providers'] = [];
  for (const [i, p] of j.providers.entries()) {
    const jwks = p.jwks;
    let jwksUrl = jwks.remote?.url ?? '';
    const jwksInline = jwks.inline ?? '';
    const ref = jwks.remote?.backendRef;
    const viaRef = ref ? jwksBackend(ref, jwks.remote?.path) : undefined;
    if (viaRef && 'problem' in viaRef) return `providers[${i}].jwks.remote.backendRef: ${viaRef.problem}`;
    if (viaRef) jwksUrl = viaRef.url;
    if (!jwksUrl && !jwksInline) return `providers[${i}].jwks: one of remote and inline is needed`;
    // A broken inline key set would make the proxy NACK the whole snapshot; refusing just this route is kinder.
    if (jwksInline && !isKeySetText(jwksInline))
      return `providers[${i}].jwks.inline: is not a JSON Web Key Set (an object with "keys")`;
    providers.push({
      issuer: p.issuer,
      audiences: [...(p.audiences ?? [])],
      jwksUrl,
      jwksInline,
      jwksCacheSeconds: jwksCacheSeconds(jwks),
      ...(viaRef?.tls ? { jwksTls: viaRef.tls } : {}),
    });
  }
  if (providers.length === 0) return 'providers: at least one provider is needed';
  const out: JwtAuthenticationInput = {
    mode: (j.mode ?? 'Strict').toUpperCase() as JwtAuthenticationInput['mode'],
    providers,
    preserveToken: j.preserveToken === true,
  };
  const loc = j.location;
  if (loc) {
    const location = toLocation(loc);
    if (typeof location === 'string') return location;
    out.location = location;
  }
  return out;
}

function isKeySetText(text: string): boolean {
  try {
    // Inline key text is free-form until parsed: the one unknown value here.
    return Array.isArray(rec(JSON.parse(text))?.keys);
  } catch {
    return false;
  }
}

/**
 * A header, query parameter or cookie location, or a CEL `expression` over `request` (whose string value is
 * the credential); a string says why the expression does not compile (the route is then refused).
 */
function toLocation(loc: Location): NonNullable<JwtAuthenticationInput['location']> | string {
  const none = { header: '', prefix: '', queryParameter: '', cookie: '', expression: '' };
  const header = loc.header;
  const query = loc.queryParameter?.name;
  const cookie = loc.cookie?.name;
  if (header) return { ...none, header: header.name, prefix: header.prefix ?? '' };
  if (query) return { ...none, queryParameter: query };
  if (cookie) return { ...none, cookie };
  const expression = loc.expression ?? '';
  const problem = celCompileProblem(expression, ['request']);
  return problem ? `location.expression: ${problem}` : { ...none, expression };
}

/**
 * API keys from the policy's Secret or from the Secrets / ConfigMaps its labels select (api-keys.ts), carried
 * as SHA-256 only; why not (the proxy refuses the route) when none is usable, an entry is malformed, or for
 * a CEL location.
 */
function toApiKeyAuth(a: ApiKey, readSecret: PolicySecretReader): ApiKeyAuthenticationInput | string {
  const keys = apiKeyEntries(a, readSecret);
  if (typeof keys === 'string') return keys;
  // Never an empty key list served as "no key is valid": the route is refused and its status says why.
  if (keys.entries.length === 0)
    return keys.duplicates.length
      ? `${keys.empty} (each key it found is held twice with different metadata, see ApiKeysUnique)`
      : keys.empty;
  const out: ApiKeyAuthenticationInput = {
    mode: (a.mode ?? 'Strict').toUpperCase() as ApiKeyAuthenticationInput['mode'],
    entries: keys.entries,
  };
  const loc = a.location;
  if (loc) {
    const location = toLocation(loc);
    if (typeof location === 'string') return location;
    out.location = location;
  }
  return out;
}

function hashKind(hash: string): string {
  if (/^\$2[abxy]?\$/.test(hash)) return 'bcrypt';
  if (/^\$[156]\$/.test(hash)) return 'crypt with MD5 or SHA-2';
  if (hash.startsWith('{SHA}') || hash.startsWith('$apr1$')) return 'malformed';
  return 'DES crypt or plain text';
}

/** htpasswd hash formats the proxy checks (src/proxy/auth/htpasswd.ts); others (bcrypt, SHA-crypt, clear) are refused. */
const supportedHash = /^(\{SHA\}[A-Za-z0-9+/]{27}=|\$apr1\$[./0-9A-Za-z]{1,8}\$[./0-9A-Za-z]{22})$/;

/**
 * Basic auth users from `users` or the Secret's htpasswd text, and where the credentials are read; why not
 * (the proxy then refuses the route) when the Secret is missing, or an entry is malformed or uses a hash
 * format the proxy cannot check.
 */
function toBasicAuth(b: Basic, readSecret: PolicySecretReader): BasicAuthenticationInput | string {
  let lines = [...(b.users ?? [])];
  let where = 'users';
  const ref = b.secretRef;
  if (ref) {
    const name = ref.name,
      key = ref.key ?? '.htaccess';
    const data = readSecret('traffic.basicAuthentication', name);
    if (!data) return `secretRef: Secret ${name} does not exist in the policy's namespace`;
    const text = data[key];
    if (text === undefined) return `secretRef: Secret ${name} has no key ${key}`;
    lines = text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    where = `Secret ${name} key ${key}`;
  }
  const users: BasicAuthenticationInput['users'] = [];
  for (const [i, line] of lines.entries()) {
    const at = line.indexOf(':');
    const name = line.slice(0, at),
      hash = line.slice(at + 1);
    // Never quote the line: it holds a password hash.
    if (at < 1) return `${where} entry ${i + 1}: is not a user:hash line`;
    if (!supportedHash.test(hash))
      return `${where} entry ${i + 1} (user ${name}): uses a hash format the proxy cannot check (${hashKind(hash)}); use {SHA} or $apr1$`;
    users.push({ name, hash });
  }
  if (users.length === 0) return `${where}: no users`;
  const location = b.location ? toLocation(b.location) : undefined;
  if (typeof location === 'string') return location;
  return {
    mode: b.mode === 'Optional' ? 'OPTIONAL' : 'STRICT',
    realm: b.realm ?? 'Restricted',
    users,
    ...(location ? { location } : {}),
  };
}

/**
 * Why each authentication field of these traffic fields cannot be enforced as written (field path → reason),
 * for status: routes those fields reach refuse their requests with 503 instead of checking less.
 */
export function unenforceableAuth(
  traffic: TrafficPolicy,
  readSecret: PolicySecretReader,
  jwksBackend: JwksBackendResolver = anyJwksBackend,
): Record<string, string> {
  const out: Record<string, string> = {};
  const jwt = traffic.jwtAuthentication;
  const jwtWhy = jwt && (jwt.mcp ? mcpJwtUnsupported(jwt, jwksBackend) : toJwtAuth(jwt, jwksBackend));
  if (typeof jwtWhy === 'string') out.jwtAuthentication = jwtWhy;
  const basic = traffic.basicAuthentication;
  const basicWhy = basic && toBasicAuth(basic, readSecret);
  if (typeof basicWhy === 'string') out.basicAuthentication = basicWhy;
  const apiKey = traffic.apiKeyAuthentication;
  const apiKeyWhy = apiKey && toApiKeyAuth(apiKey, readSecret);
  if (typeof apiKeyWhy === 'string') out.apiKeyAuthentication = apiKeyWhy;
  const ext = traffic.extAuth;
  const extWhy = ext && toExtAuth(ext, anyBackend);
  if (typeof extWhy === 'string') out.extAuth = extWhy;
  const proc = traffic.extProc;
  const procWhy = proc && toExtProc(proc, anyBackend);
  if (typeof procWhy === 'string') out.extProc = procWhy;
  const global = traffic.rateLimit?.global;
  const globalWhy = global && toGlobalRateLimit(global, anyBackend);
  if (typeof globalWhy === 'string') out['rateLimit.global'] = globalWhy;
  return out;
}

/**
 * `jwtAuthentication` with `mcp` checks providers and location as the generic form does (the first provider
 * is the authorization server clients discover), and never hands the token to MCP targets: what cannot be
 * enforced is refused (the route answers 503) rather than accepted and skipped.
 */
function mcpJwtUnsupported(j: Jwt, jwksBackend: JwksBackendResolver): string | undefined {
  const generic = toJwtAuth(j, jwksBackend);
  if (typeof generic === 'string') return generic;
  if (j.preserveToken === true) return mcpPreserveToken;
  return undefined;
}

/** Why preserveToken: true is refused on MCP routes, with or without `mcp` (scope-refusals.ts for the latter). */
export const mcpPreserveToken =
  'MCP targets never receive the client token (their upstream session outlives the request that carried it; they use backend.auth credentials); preserveToken: true is not supported on MCP routes';

const AUTH_METHODS = ['jwtAuthentication', 'basicAuthentication', 'apiKeyAuthentication'] as const;

/**
 * The security refusals of a route's merged fields (`traffic.x` → value, with the source of each): every
 * authentication or authorization setting the proxy cannot enforce as written. The proxy answers 503
 * policy_not_enforced on the route instead of forwarding requests unchecked.
 */
export function authRefusals(
  fields: EffectiveFields,
  sourceOf: (field: string) => string,
  readSecret: PolicySecretReader,
  resolveBackend: PolicyBackendResolver,
  backendMcp: BackendMcpSecurity = { refusals: [] },
  jwksBackend: JwksBackendResolver = noJwksBackends,
): IrRefusal[] {
  const traffic = sectionOf(fields, 'traffic');
  const why = unenforceableAuth(traffic, readSecret, jwksBackend);
  // The route's own resolver: an extAuth backendRef that does not resolve here is refused too.
  const ext = traffic.extAuth;
  const extWhy = ext && toExtAuth(ext, resolveBackend);
  if (typeof extWhy === 'string') why.extAuth = extWhy;
  const proc = traffic.extProc;
  const procWhy = proc && toExtProc(proc, resolveBackend);
  if (typeof procWhy === 'string') why.extProc = procWhy;
  const global = traffic.rateLimit?.global;
  const globalWhy = global && toGlobalRateLimit(global, resolveBackend);
  if (typeof globalWhy === 'string') why['rateLimit.global'] = globalWhy;
  const out: IrRefusal[] = Object.entries(why).map(([f, reason]) => ({
    field: `spec.traffic.${f}`,
    source: sourceOf(`traffic.${f.split('.')[0] ?? f}`),
    reason,
    security: true,
  }));
  // One route, one credential check (they all default to the Authorization header): a combination is refused rather than half applied.
  const methods = AUTH_METHODS.filter((f) => traffic[f] !== undefined);
  if (methods.length > 1) {
    out.push({
      field: `spec.traffic.${methods[1] ?? ''}`,
      source: sourceOf(`traffic.${methods[1] ?? ''}`),
      reason: `${methods.join(' with ')} on one route is not supported`,
      security: true,
    });
  }
  out.push(...backendMcp.refusals);
  if (backendMcp.authentication && methods.length > 0)
    out.push({
      field: 'spec.backend.mcp.authentication',
      source: backendMcp.authentication.source,
      reason: `backend.mcp.authentication with traffic.${methods[0] ?? ''} on one route is not supported`,
      security: true,
    });
  return out.sort((a, b) => (a.field ?? '').localeCompare(b.field ?? ''));
}
