// The IR as the translator builds it: the proto3 JSON form of proto/gw/ir/v1 (camelCase fields, enums
// by name, oneofs as one set field). Kept structurally identical to the proto so the generated types
// can replace these declarations without touching translation logic.
import type { IrPromptGuard } from './prompt-guard.js';
import type { IrMcpGuardrails } from './mcp-guardrails.js';
import type { IrRouteFilters } from './route-filters.js';

export interface IrSnapshot {
  version: string;
  resources: IrResource[];
}

/** `kind` (and `transport` on MCP targets) is the oneof discriminator proto-loader adds when decoding. */
export type IrResource =
  | { kind: 'bind'; bind: IrBind }
  | { kind: 'listener'; listener: IrListener }
  | { kind: 'route'; route: IrRoute }
  | { kind: 'backend'; backend: IrBackend }
  | { kind: 'model'; model: IrModel };

/**
 * Effective policy fields, already merged: field path (`traffic.cors`) → the value as canonical JSON
 * text (sorted keys), because most policy shapes are not in the proto; provenance per path.
 */
import type { ListenerLimitsInput, TrafficPolicyInput } from '../ir/types.js';
import type { AiProviderSettings as AiProviderSettingsInput } from '../ir/gen/gw/ir/v1/AiProviderSettings.js';
import type { IrRefusal } from '../coverage/effective.js';

export interface IrPolicyFields {
  fields: Record<string, string>;
  provenance: Record<string, IrFieldProvenance>;
}

export interface IrFieldProvenance {
  /** `GwPolicy ns/name`, `GwBackend ns/name` (own policies) or `GwBackend ns/name target t` (MCP target). */
  source: string;
  /** Gateway, Listener, Route, RouteRule, Backend, BackendSection, BackendOwn, Target. */
  level: string;
  /** Objects that set the same field but lost, best first. */
  overridden: string[];
}

export interface IrBind {
  name: string;
  port: number;
  address: string;
}

export interface IrListener {
  name: string;
  bind: string;
  hostnames: string[];
  protocol: 'HTTP' | 'HTTPS' | 'LISTENER_PROTOCOL_UNSPECIFIED';
  /** Effective frontend policy (Gateway < Listener/port). */
  frontend?: IrPolicyFields;
  /** HTTPS only: the certificates to terminate TLS with. */
  tls?: IrListenerTls;
  /** Frontend settings this proxy does not act on (the coverage table). */
  refusals?: IrRefusal[];
  /** `frontend.http.maxConcurrentRequests` and `frontend.tcp.maxConnections`, when set. */
  limits?: ListenerLimitsInput;
}

export interface IrListenerTls {
  certificates: IrTlsCertificate[];
}

/** `privateKeyPem` is secret: never log or render it (goldens show a fingerprint). */
export interface IrTlsCertificate {
  certChainPem: string;
  privateKeyPem: string;
  /** `Secret ns/name`. */
  source: string;
}

export interface IrPathMatch {
  kind?: 'exact' | 'prefix' | 'regex';
  exact?: string;
  prefix?: string;
  regex?: string;
}

/** One HTTPRoute match (AND of its parts); see RouteMatch in ir.proto. */
export interface IrRouteMatch {
  path: IrPathMatch;
  headers: IrValueMatch[];
  queryParams: IrValueMatch[];
  method: string;
}

export interface IrValueMatch {
  name: string;
  kind: 'exact' | 'regex';
  exact?: string;
  regex?: string;
}

/** Precedence tie-breakers: older first, then `namespace/name`, then rule index. */
export interface IrRouteOrder {
  created: string;
  key: string;
  rule: number;
}

export interface IrBackendRef {
  backend: string;
  weight: number;
  /** Effective backend policy for this route → backend edge. */
  policy?: IrPolicyFields;
  /** MCP target name → effective policy of that target (policy resource < backend < target). */
  targetPolicies?: Record<string, IrPolicyFields>;
  /** Upstream TLS from `backend.tls`, references resolved; absent means plain HTTP. */
  tls?: IrBackendTls;
  /** LLM settings of an edge to an `ai` backend (src/translate/backend-ai.ts). */
  ai?: IrAiEdge;
  /** Prompt guards from `backend.ai.promptGuard`, resolved (src/translate/prompt-guard.ts). */
  promptGuard?: IrPromptGuard;
  /** `backend.mcp.guardrails` with processor references resolved. */
  mcpGuardrails?: IrMcpGuardrails;
  /** `backend.auth` of a non-AI edge, resolved (src/translate/backend-auth.ts); `key` is secret. */
  credential?: IrAiCredential;
  /** MCP target name → the resolved `backend.auth` of a target with its own policies; other targets use `credential`. */
  targetCredentials?: Record<string, IrAiCredential>;
}

export type IrAiRouteType =
  | 'AI_ROUTE_COMPLETIONS'
  | 'AI_ROUTE_MESSAGES'
  | 'AI_ROUTE_RESPONSES'
  | 'AI_ROUTE_EMBEDDINGS'
  | 'AI_ROUTE_MODELS'
  | 'AI_ROUTE_REALTIME'
  | 'AI_ROUTE_PASSTHROUGH';

export interface IrAiEdge {
  providers: Record<string, IrAiProviderEdge>;
  routes: Record<string, IrAiRouteType>;
}

/** `key` is secret: never log or render it (goldens show a hash prefix). */
export type IrAiCredential =
  | { kind: 'key'; key: string; source: string }
  | { kind: 'passthrough'; passthrough: true; source: string }
  | { kind: 'aws'; aws: IrAwsCredential; source: string }
  | { kind: 'azure'; azure: { tenantId: string; clientId: string; clientSecret: string }; source: string }
  | {
      kind: 'gcp';
      gcp: { clientEmail: string; privateKey: string; privateKeyId: string; tokenUri: string };
      source: string;
    };

/** Empty keys mean the proxy's own environment; `secretAccessKey` and `sessionToken` are secret like `key`. */
export interface IrAwsCredential {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  region: string;
  serviceName: string;
}

export interface IrAiProviderEdge {
  credential?: IrAiCredential;
  modelAliases: Record<string, string>;
  defaults: { field: string; valueJson: string }[];
  overrides: { field: string; valueJson: string }[];
  promptPrepend: { role: string; content: string }[];
  promptAppend: { role: string; content: string }[];
  /** From the provider's merged `backend.tls`; `clientPrivateKeyPem` is secret like IrBackendTls's. */
  tls?: IrBackendTls;
  /** `backend.http.requestTimeout` in ms. */
  requestTimeoutMs?: number;
}

/** `clientPrivateKeyPem` is secret: never log or render it (goldens show a hash prefix). */
export interface IrBackendTls {
  caPem: string;
  clientCertChainPem: string;
  clientPrivateKeyPem: string;
  sni: string;
  insecureSkipVerify: 'SKIP_NONE' | 'SKIP_HOSTNAME' | 'SKIP_ALL';
  verifySubjectAltNames: string[];
  /** `GwPolicy ns/name` (or `GwBackend ns/name`): the object whose `backend.tls` won. */
  source: string;
}

export interface IrCors {
  allowOrigins: string[];
  allowHeaders: string[];
  exposeHeaders: string[];
  allowMethods: string[];
  maxAge: number;
  allowCredentials: boolean;
}

export interface IrAuthorization {
  rules: { expressions: string[]; action: 'ALLOW' | 'DENY' | 'REQUIRE' }[];
}

export interface IrMcpAuthentication {
  mode: 'STRICT' | 'OPTIONAL' | 'PERMISSIVE';
  issuer: string;
  audiences: string[];
  provider: string;
  clientId: string;
  clientSecret: string;
  resourceMetadata?: {
    resource: string;
    scopesSupported: string[];
    bearerMethodsSupported: string[];
    extraJson: string;
  };
  jwksUrl: string;
  jwksInline: string;
}

/** `traffic.jwtAuthentication` without `mcp`; a location reads exactly one of header, queryParameter, cookie. */
export interface IrJwtAuthentication {
  mode: 'STRICT' | 'OPTIONAL' | 'PERMISSIVE';
  providers: { issuer: string; audiences: string[]; jwksUrl: string; jwksInline: string }[];
  location?: { header: string; prefix: string; queryParameter: string; cookie: string };
  preserveToken: boolean;
}

/** The typed subset the proxy runtime reads today; everything else travels in `effective`. */
export interface IrPolicy {
  cors?: IrCors;
  mcpAuthentication?: IrMcpAuthentication;
  authorization?: IrAuthorization;
  maxRequestBytes?: number;
  jwtAuthentication?: IrJwtAuthentication;
  basicAuthentication?: IrBasicAuthentication;
  apiKeyAuthentication?: IrApiKeyAuthentication;
  extAuthorization?: IrExtAuthorization;
}

/** `traffic.extAuth` over HTTP (src/translate/ext-auth.ts); header names lower case, CEL kept as text. */
export interface IrExtAuthorization {
  url: string;
  failOpen: boolean;
  allowedRequestHeaders: string[];
  addRequestHeaders: Record<string, string>;
  allowedResponseHeaders: string[];
  pathExpression: string;
  forwardBody: boolean;
  maxBodyBytes: number;
  /** `conditional`: the first branch whose condition holds (empty condition: the fallback) decides; the fields above are unused. */
  conditional: { condition: string; policy: IrExtAuthorization }[];
  cache?: { key: string[]; ttlMs: number; maxEntries: number };
}

/** `traffic.apiKeyAuthentication`: SHA-256 (hex) of every key, never the keys. */
export interface IrApiKeyAuthentication {
  mode: 'STRICT' | 'OPTIONAL' | 'PERMISSIVE';
  /** One per key: the SHA-256 (hex) and the entry's metadata as JSON text (`{}` for a plain key). */
  entries: { keySha256: string; metadataJson: string }[];
  location?: IrJwtAuthentication['location'];
}

/** `traffic.basicAuthentication` with every user's htpasswd hash (supported formats only). */
export interface IrBasicAuthentication {
  mode: 'STRICT' | 'OPTIONAL';
  realm: string;
  users: { name: string; hash: string }[];
}

export interface IrRoute {
  name: string;
  listeners: string[];
  hostnames: string[];
  routeMatches: IrRouteMatch[];
  order: IrRouteOrder;
  backends: IrBackendRef[];
  policy: IrPolicy;
  /** Field path → source object, as in ir.proto; `effective.provenance` has the full record. */
  provenance: Record<string, string>;
  /** All effective frontend-free policy fields (traffic.*, backend.*) with provenance. */
  effective: IrPolicyFields;
  /** HTTPRoute rule timeouts; absent when the rule sets none. */
  timeouts?: IrRouteTimeouts;
  /** HTTPRoute/GRPCRoute rule filters; absent when the rule sets none. */
  filters?: IrRouteFilters;
  /** GwPolicy `traffic`, typed (the generated IR type); absent when the policy sets none of it. */
  traffic?: TrafficPolicyInput;
  /** Refused fields that reach this route; absent when none. */
  refusals?: IrRefusal[];
}

export interface IrRouteTimeouts {
  requestMs: number;
  backendRequestMs: number;
}

export interface IrMcpTarget {
  name: string;
  transport: 'remote';
  remote: { url: string; protocol: 'STREAMABLE_HTTP' | 'SSE' };
}

export interface IrAiProvider {
  name: string;
  /** openai, azureopenai, azure, anthropic, gemini, vertexai, bedrock or custom. */
  kind: string;
  /** The vendor settings object as canonical JSON text (provenance for `gw explain`; the proxy reads `settings`). */
  settingsJson: string;
  /** The vendor settings the proxy acts on, typed. */
  settings?: AiProviderSettingsInput;
  host: string;
  port: number;
  path: string;
  pathPrefix: string;
  /** Backend policies of this provider (NamedLLMProvider.policies) as canonical JSON text. */
  policiesJson: string;
}

export interface IrBackend {
  name: string;
  kind?: 'mcp' | 'ai' | 'static' | 'a2a' | 'dynamicForwardProxy' | 'aws';
  mcp?: { targets: IrMcpTarget[]; prefixMode: string; failureMode: string; sessionRouting: string };
  ai?: { groups: { providers: IrAiProvider[] }[] };
  static?: { host: string; port: number };
  a2a?: { host: string; port: number };
  dynamicForwardProxy?: Record<string, never>;
  aws?: { agentRuntimeArn: string; qualifier: string };
}

export interface IrModelTarget {
  /** IR name of the target model. */
  model: string;
  /** Upstream model name override (required for wildcard matches). */
  modelName: string;
  priority: number;
  when: string;
  weight: number;
}

export interface IrModel {
  name: string;
  /** Parent listener or route names. */
  parents: string[];
  match: { exact?: string; prefix?: string; suffix?: string; any?: boolean };
  visibility: 'PUBLIC' | 'INTERNAL';
  /** `credential`: `policies.auth` resolved; unset when none is set, or (with `auth.secretRef`) when it could not be. */
  provider?: {
    provider: string;
    baseUrl: string;
    settingsJson: string;
    policiesJson: string;
    credential?: IrAiCredential;
  };
  routing?: { kind: 'FAILOVER' | 'CONDITIONAL' | 'WEIGHTED'; targets: IrModelTarget[] };
}
