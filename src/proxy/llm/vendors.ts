// Where and how each LLM vendor is called: address, API path, TLS and the credential header. Pure:
// IR provider in, endpoint out. Behaviour: docs/proxy.md "LLM backends".
import type { BackendTls } from '../../ir/types.js';
import type { AiProvider__Output as AiProvider } from '../../ir/gen/gw/ir/v1/AiProvider.js';
import type { Guardrail } from './bedrock.js';
import type { AiProviderSettings__Output as AiProviderSettings } from '../../ir/gen/gw/ir/v1/AiProviderSettings.js';

/** The wire format spoken upstream: OpenAI chat completions as is, Anthropic messages, Bedrock Converse or Cohere v2 chat (converted). */
export type WireFormat = 'openai' | 'anthropic' | 'bedrock' | 'cohere';

export interface VendorEndpoint {
  format: WireFormat;
  host: string;
  port: number;
  /** Path and query of the chat endpoint. */
  path: string;
  /** Set for HTTPS: the edge's own `backend.tls`, or system roots for the vendor defaults and port 443. */
  tls?: BackendTls;
  /** Request headers carrying `key`; the key is never put anywhere else. */
  credentialHeaders(key: string): Record<string, string>;
  /** Further fixed headers the vendor needs. */
  fixedHeaders: Record<string, string>;
  /** Other API paths than chat, by route type (`AI_ROUTE_MODELS` → `/v1/models`); a type not listed is not served. */
  apiPaths: Partial<Record<PlainRouteType, string>>;
  /** Set when the chat path names the model (Bedrock, Azure deployments): it replaces `path`. */
  chatPath?: (model: string, stream: boolean) => string;
  /** AWS SigV4 scope of the provider, for an `aws` credential. */
  signing?: { region: string; service: string };
  /** Bedrock guardrail applied to every Converse call. */
  guardrail?: Guardrail;
  /** Path of the vendor's moderation endpoint (OpenAI `/v1/moderations`), for `openai.moderation`. */
  moderationPath?: string;
}

/** Route types forwarded unchanged (no conversion, no shaping) to a provider that serves them. */
export type PlainRouteType = 'AI_ROUTE_MODELS' | 'AI_ROUTE_EMBEDDINGS' | 'AI_ROUTE_RESPONSES' | 'AI_ROUTE_MESSAGES';

export type VendorResult = { ok: true; endpoint: VendorEndpoint } | { ok: false; message: string };

/** TLS with the proxy's default trust store and the host name checked. */
export const SYSTEM_ROOTS: BackendTls = {
  caPem: '',
  clientCertChainPem: '',
  clientPrivateKeyPem: '',
  sni: '',
  insecureSkipVerify: 'SKIP_NONE',
  verifySubjectAltNames: [],
  source: 'vendor default',
  alpnProtocols: [],
  keyExchangeGroups: [],
  workloadIdentity: false,
};

export const ANTHROPIC_VERSION = '2023-06-01';

const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

type Settings = AiProviderSettings;
type At = (
  host: string,
  port: number,
  prefix: string,
  suffix: string,
) => { host: string; port: number; path: string; tls?: BackendTls };
type VendorFn = (p: AiProvider, s: Settings, at: At) => VendorResult;

/** The provider's chat endpoint from its typed settings; IR host, port, path and pathPrefix win over the vendor defaults. */
export function vendorEndpoint(p: AiProvider, settings: Settings | null, edgeTls: BackendTls | null): VendorResult {
  const at: At = (host, port, prefix, suffix) => {
    const portOut = p.port || port;
    const tls = edgeTls ?? (portOut === 443 ? SYSTEM_ROOTS : undefined);
    return {
      host: p.host || host,
      port: portOut,
      path: p.path || `${p.pathPrefix || prefix}${suffix}`,
      ...(tls ? { tls } : {}),
    };
  };
  const fn = VENDORS[p.kind];
  if (!fn)
    return {
      ok: false,
      message: `provider kind ${p.kind || 'unset'} is not supported by this proxy (supported: ${Object.keys(VENDORS).join(', ')})`,
    };
  return fn(p, settings ?? EMPTY_SETTINGS, at);
}

export const EMPTY_SETTINGS: Settings = {
  model: '',
  endpoint: '',
  apiVersion: '',
  deploymentName: '',
  region: '',
  guardrail: null,
  resourceName: '',
  resourceType: '',
  projectName: '',
  projectId: '',
  formats: [],
  providerOverride: '',
  moderation: null,
};

const openai: VendorFn = (p, _s, at) => {
  const base = p.pathPrefix || '/v1';
  return {
    ok: true,
    endpoint: {
      format: 'openai',
      ...at('api.openai.com', 443, '/v1', '/chat/completions'),
      credentialHeaders: bearer,
      fixedHeaders: {},
      apiPaths: {
        AI_ROUTE_MODELS: `${base}/models`,
        AI_ROUTE_EMBEDDINGS: `${base}/embeddings`,
        AI_ROUTE_RESPONSES: `${base}/responses`,
      },
      moderationPath: `${base}/moderations`,
    },
  };
};

const anthropic: VendorFn = (p, _s, at) => {
  const base = p.pathPrefix || '/v1';
  return {
    ok: true,
    endpoint: {
      format: 'anthropic',
      ...at('api.anthropic.com', 443, '/v1', '/messages'),
      credentialHeaders: (key) => ({ 'x-api-key': key }),
      fixedHeaders: { 'anthropic-version': ANTHROPIC_VERSION },
      apiPaths: { AI_ROUTE_MODELS: `${base}/models`, AI_ROUTE_MESSAGES: `${base}/messages` },
    },
  };
};

const azureopenai: VendorFn = (p, s, at) => {
  // The endpoint may be written with a scheme; only the host name is used.
  const endpoint = s.endpoint.replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '');
  const version = s.apiVersion || 'v1';
  const deployment = s.deploymentName;
  if (!endpoint && !p.host) return { ok: false, message: 'azureopenai needs endpoint' };
  if (version !== 'v1' && !deployment)
    return { ok: false, message: `azureopenai apiVersion ${version} needs deploymentName` };
  // apiVersion v1 is the versionless OpenAI-style API (model in the body); dated versions address a deployment.
  const suffix =
    version === 'v1'
      ? '/openai/v1/chat/completions'
      : `/openai/deployments/${encodeURIComponent(deployment)}/chat/completions?api-version=${encodeURIComponent(version)}`;
  const apiPaths: VendorEndpoint['apiPaths'] =
    version === 'v1'
      ? {
          AI_ROUTE_MODELS: '/openai/v1/models',
          AI_ROUTE_EMBEDDINGS: '/openai/v1/embeddings',
          AI_ROUTE_RESPONSES: '/openai/v1/responses',
        }
      : {
          AI_ROUTE_EMBEDDINGS: `/openai/deployments/${encodeURIComponent(deployment)}/embeddings?api-version=${encodeURIComponent(version)}`,
        };
  return {
    ok: true,
    endpoint: {
      format: 'openai',
      ...at(endpoint, 443, '', suffix),
      credentialHeaders: (key) => ({ 'api-key': key }),
      fixedHeaders: {},
      apiPaths,
    },
  };
};

const custom: VendorFn = (p, s, at) => {
  if (!p.host || !p.port) return { ok: false, message: 'custom needs host and port (or backendRef)' };
  const formats = s.formats;
  const completions = formats.find((f) => f.format === 'Completions');
  const chosen = completions ?? formats.find((f) => f.format === 'Messages');
  if (!chosen) return { ok: false, message: 'custom needs the Completions or Messages format' };
  const format: WireFormat = completions ? 'openai' : 'anthropic';
  const path = chosen.path || (format === 'openai' ? '/v1/chat/completions' : '/v1/messages');
  // Only the formats the provider lists are served, at the paths it gives (or the usual ones).
  const pathOf = (name: string, dflt: string): string | undefined => {
    const f = formats.find((x) => x.format === name);
    return f ? f.path || dflt : undefined;
  };
  const apiPaths: VendorEndpoint['apiPaths'] = {};
  const embeddings = pathOf('Embeddings', '/v1/embeddings'),
    responses = pathOf('Responses', '/v1/responses'),
    msgs = pathOf('Messages', '/v1/messages');
  if (embeddings) apiPaths.AI_ROUTE_EMBEDDINGS = embeddings;
  if (responses) apiPaths.AI_ROUTE_RESPONSES = responses;
  if (msgs) apiPaths.AI_ROUTE_MESSAGES = msgs;
  return {
    ok: true,
    endpoint: {
      format,
      ...at(p.host, p.port, '', path),
      credentialHeaders: bearer,
      fixedHeaders:
        format === 'anthropic' ? { 'anthropic-version': ANTHROPIC_VERSION } : ({} as Record<string, string>),
      apiPaths,
    },
  };
};

// Google's OpenAI-compatible API.
const gemini: VendorFn = (p, _s, at) => {
  const base = p.pathPrefix || '/v1beta/openai';
  return {
    ok: true,
    endpoint: {
      format: 'openai',
      ...at('generativelanguage.googleapis.com', 443, '/v1beta/openai', '/chat/completions'),
      credentialHeaders: bearer,
      fixedHeaders: {},
      apiPaths: { AI_ROUTE_MODELS: `${base}/models`, AI_ROUTE_EMBEDDINGS: `${base}/embeddings` },
    },
  };
};

const bedrock: VendorFn = (p, s, at) => {
  const region = regionOf(s.region, 'us-east-1');
  if (!region) return { ok: false, message: 'bedrock region must be lower-case letters, digits and hyphens' };
  const g = s.guardrail;
  const guardrail = g && g.identifier && g.version ? { identifier: g.identifier, version: g.version } : undefined;
  const prefix = p.pathPrefix;
  return {
    ok: true,
    endpoint: {
      format: 'bedrock',
      ...at(`bedrock-runtime.${region}.amazonaws.com`, 443, '', '/model/{modelId}/converse'),
      // An IR path override is used as is (it then names no model).
      ...(p.path
        ? {}
        : {
            chatPath: (model: string, stream: boolean) =>
              `${prefix}/model/${encodeURIComponent(model)}/${stream ? 'converse-stream' : 'converse'}`,
          }),
      // Bedrock API keys are bearer tokens; an `aws` credential signs instead.
      credentialHeaders: bearer,
      fixedHeaders: {},
      apiPaths: {},
      signing: { region, service: 'bedrock' },
      ...(guardrail ? { guardrail } : {}),
    },
  };
};

const azure: VendorFn = (p, s, at) => {
  const resource = s.resourceName;
  const type = s.resourceType === 'Foundry' ? 'Foundry' : 'OpenAI';
  const project = s.projectName;
  const version = s.apiVersion || 'v1';
  if (!resource && !p.host) return { ok: false, message: 'azure needs resourceName' };
  if (type === 'Foundry' && !project) return { ok: false, message: 'azure resourceType Foundry needs projectName' };
  const host = type === 'Foundry' ? `${resource}.services.ai.azure.com` : `${resource}.openai.azure.com`;
  const base = `${type === 'Foundry' ? `/api/projects/${encodeURIComponent(project)}` : ''}/openai`;
  const q = `?api-version=${encodeURIComponent(version)}`;
  const e = at(
    host,
    443,
    '',
    version === 'v1' ? `${base}/v1/chat/completions` : `${base}/deployments/{model}/chat/completions${q}`,
  );
  // Dated API versions address a deployment, named like the request's model.
  const chatPath =
    version === 'v1' || p.path
      ? undefined
      : (model: string) => `${base}/deployments/${encodeURIComponent(model)}/chat/completions${q}`;
  const apiPaths: VendorEndpoint['apiPaths'] =
    version === 'v1'
      ? {
          AI_ROUTE_MODELS: `${base}/v1/models`,
          AI_ROUTE_EMBEDDINGS: `${base}/v1/embeddings`,
          AI_ROUTE_RESPONSES: `${base}/v1/responses`,
        }
      : {};
  return {
    ok: true,
    endpoint: {
      format: 'openai',
      ...e,
      ...(chatPath ? { chatPath } : {}),
      credentialHeaders: (key) => ({ 'api-key': key }),
      fixedHeaders: {},
      apiPaths,
    },
  };
};

const vertexai: VendorFn = (_p, s, at) => {
  const project = s.projectId;
  const region = regionOf(s.region, 'us-central1');
  if (!project) return { ok: false, message: 'vertexai needs projectId' };
  if (!region) return { ok: false, message: 'vertexai region must be lower-case letters, digits and hyphens' };
  const base = `/v1/projects/${encodeURIComponent(project)}/locations/${region}/endpoints/openapi`;
  const host = region === 'global' ? 'aiplatform.googleapis.com' : `${region}-aiplatform.googleapis.com`;
  return {
    ok: true,
    endpoint: {
      format: 'openai',
      ...at(host, 443, base, '/chat/completions'),
      credentialHeaders: bearer,
      fixedHeaders: {},
      apiPaths: { AI_ROUTE_EMBEDDINGS: `${base}/embeddings` },
    },
  };
};

// Cohere's v2 Chat API (GwModel provider Cohere); only chat is served (its embed and models APIs are not OpenAI's).
const cohere: VendorFn = (_p, _s, at) => ({
  ok: true,
  endpoint: {
    format: 'cohere',
    ...at('api.cohere.com', 443, '/v2', '/chat'),
    credentialHeaders: bearer,
    fixedHeaders: {},
    apiPaths: {},
  },
});

const VENDORS: Record<string, VendorFn> = {
  openai,
  azureopenai,
  azure,
  anthropic,
  gemini,
  bedrock,
  vertexai,
  custom,
  cohere,
};

/** A cloud region setting (default when unset), or undefined when it could not be a region (it becomes part of a host name). */
function regionOf(v: string, dflt: string): string | undefined {
  const r = v || dflt;
  return /^[a-z0-9-]{1,63}$/.test(r) ? r : undefined;
}
