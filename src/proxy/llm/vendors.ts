// Where and how each LLM vendor is called: address, API path, TLS and the credential header. Pure:
// IR provider in, endpoint out. Behaviour: docs/proxy.md "LLM backends".
import type { BackendTls } from '../../ir/types.js';
import type { AiProvider__Output as AiProvider } from '../../ir/gen/gw/ir/v1/AiProvider.js';
import type { Guardrail } from './bedrock.js';

/** The wire format spoken upstream: OpenAI chat completions as is, Anthropic messages or Bedrock Converse (converted). */
export type WireFormat = 'openai' | 'anthropic' | 'bedrock';

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
}

/** Route types forwarded unchanged (no conversion, no shaping) to a provider that serves them. */
export type PlainRouteType = 'AI_ROUTE_MODELS' | 'AI_ROUTE_EMBEDDINGS' | 'AI_ROUTE_RESPONSES' | 'AI_ROUTE_MESSAGES';

export type VendorResult = { ok: true; endpoint: VendorEndpoint } | { ok: false; message: string };

/** TLS with the proxy's default trust store and the host name checked. */
export const SYSTEM_ROOTS: BackendTls = {
  caPem: '', clientCertChainPem: '', clientPrivateKeyPem: '', sni: '', insecureSkipVerify: 'SKIP_NONE', verifySubjectAltNames: [], source: 'vendor default',
};

export const ANTHROPIC_VERSION = '2023-06-01';

const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

/** The provider's chat endpoint; IR host, port, path and pathPrefix win over the vendor defaults. */
export function vendorEndpoint(p: AiProvider, settings: Record<string, unknown>, edgeTls: BackendTls | null): VendorResult {
  const at = (host: string, port: number, prefix: string, suffix: string) => {
    const h = p.host || host;
    const portOut = p.port || port;
    const path = p.path || `${p.pathPrefix || prefix}${suffix}`;
    const tls = edgeTls ?? (portOut === 443 ? SYSTEM_ROOTS : undefined);
    return { host: h, port: portOut, path, ...(tls ? { tls } : {}) };
  };
  switch (p.kind) {
    case 'openai': {
      const base = p.pathPrefix || '/v1';
      return {
        ok: true,
        endpoint: {
          format: 'openai', ...at('api.openai.com', 443, '/v1', '/chat/completions'), credentialHeaders: bearer, fixedHeaders: {},
          apiPaths: { AI_ROUTE_MODELS: `${base}/models`, AI_ROUTE_EMBEDDINGS: `${base}/embeddings`, AI_ROUTE_RESPONSES: `${base}/responses` },
        },
      };
    }
    case 'anthropic': {
      const base = p.pathPrefix || '/v1';
      return {
        ok: true,
        endpoint: {
          format: 'anthropic', ...at('api.anthropic.com', 443, '/v1', '/messages'),
          credentialHeaders: (key) => ({ 'x-api-key': key }), fixedHeaders: { 'anthropic-version': ANTHROPIC_VERSION },
          apiPaths: { AI_ROUTE_MODELS: `${base}/models`, AI_ROUTE_MESSAGES: `${base}/messages` },
        },
      };
    }
    case 'azureopenai': {
      // The endpoint may be written with a scheme; only the host name is used.
      const endpoint = String(settings.endpoint ?? '').replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '');
      const version = typeof settings.apiVersion === 'string' ? settings.apiVersion : 'v1';
      const deployment = typeof settings.deploymentName === 'string' ? settings.deploymentName : '';
      if (!endpoint && !p.host) return { ok: false, message: 'azureopenai needs endpoint' };
      if (version !== 'v1' && !deployment) return { ok: false, message: `azureopenai apiVersion ${version} needs deploymentName` };
      // apiVersion v1 is the versionless OpenAI-style API (model in the body); dated versions address a deployment.
      const suffix = version === 'v1' ? '/openai/v1/chat/completions' : `/openai/deployments/${encodeURIComponent(deployment)}/chat/completions?api-version=${encodeURIComponent(version)}`;
      const e = at(endpoint, 443, '', suffix);
      const apiPaths: VendorEndpoint['apiPaths'] = version === 'v1'
        ? { AI_ROUTE_MODELS: '/openai/v1/models', AI_ROUTE_EMBEDDINGS: '/openai/v1/embeddings', AI_ROUTE_RESPONSES: '/openai/v1/responses' }
        : { AI_ROUTE_EMBEDDINGS: `/openai/deployments/${encodeURIComponent(deployment)}/embeddings?api-version=${encodeURIComponent(version)}` };
      return { ok: true, endpoint: { format: 'openai', ...e, credentialHeaders: (key) => ({ 'api-key': key }), fixedHeaders: {}, apiPaths } };
    }
    case 'custom': {
      if (!p.host || !p.port) return { ok: false, message: 'custom needs host and port (or backendRef)' };
      const formats = Array.isArray(settings.formats) ? (settings.formats as { format?: unknown; path?: unknown }[]) : [];
      const completions = formats.find((f) => f.format === 'Completions');
      const messages = formats.find((f) => f.format === 'Messages');
      const chosen = completions ?? messages;
      if (!chosen) return { ok: false, message: 'custom needs the Completions or Messages format' };
      const format: WireFormat = completions ? 'openai' : 'anthropic';
      const path = typeof chosen.path === 'string' ? chosen.path : format === 'openai' ? '/v1/chat/completions' : '/v1/messages';
      const e = at(p.host, p.port, '', path);
      // Only the formats the provider lists are served, at the paths it gives (or the usual ones).
      const pathOf = (format: string, dflt: string): string | undefined => {
        const f = formats.find((x) => x.format === format);
        return f ? (typeof f.path === 'string' ? f.path : dflt) : undefined;
      };
      const apiPaths: VendorEndpoint['apiPaths'] = {};
      const embeddings = pathOf('Embeddings', '/v1/embeddings'), responses = pathOf('Responses', '/v1/responses'), msgs = pathOf('Messages', '/v1/messages');
      if (embeddings) apiPaths.AI_ROUTE_EMBEDDINGS = embeddings;
      if (responses) apiPaths.AI_ROUTE_RESPONSES = responses;
      if (msgs) apiPaths.AI_ROUTE_MESSAGES = msgs;
      return {
        ok: true,
        endpoint: { format, ...e, credentialHeaders: bearer, fixedHeaders: format === 'anthropic' ? { 'anthropic-version': ANTHROPIC_VERSION } : {}, apiPaths },
      };
    }
    case 'gemini': {
      // Google's OpenAI-compatible API.
      const base = p.pathPrefix || '/v1beta/openai';
      return {
        ok: true,
        endpoint: {
          format: 'openai', ...at('generativelanguage.googleapis.com', 443, '/v1beta/openai', '/chat/completions'), credentialHeaders: bearer, fixedHeaders: {},
          apiPaths: { AI_ROUTE_MODELS: `${base}/models`, AI_ROUTE_EMBEDDINGS: `${base}/embeddings` },
        },
      };
    }
    case 'bedrock': {
      const region = regionOf(settings.region, 'us-east-1');
      if (!region) return { ok: false, message: 'bedrock region must be lower-case letters, digits and hyphens' };
      const g = settings.guardrail as { identifier?: unknown; version?: unknown } | undefined;
      const guardrail = typeof g?.identifier === 'string' && typeof g.version === 'string' ? { identifier: g.identifier, version: g.version } : undefined;
      const prefix = p.pathPrefix;
      return {
        ok: true,
        endpoint: {
          format: 'bedrock', ...at(`bedrock-runtime.${region}.amazonaws.com`, 443, '', '/model/{modelId}/converse'),
          // An IR path override is used as is (it then names no model).
          ...(p.path ? {} : { chatPath: (model: string, stream: boolean) => `${prefix}/model/${encodeURIComponent(model)}/${stream ? 'converse-stream' : 'converse'}` }),
          // Bedrock API keys are bearer tokens; an `aws` credential signs instead.
          credentialHeaders: bearer, fixedHeaders: {}, apiPaths: {}, signing: { region, service: 'bedrock' }, ...(guardrail ? { guardrail } : {}),
        },
      };
    }
    case 'azure': {
      const resource = typeof settings.resourceName === 'string' ? settings.resourceName : '';
      const type = settings.resourceType === 'Foundry' ? 'Foundry' : 'OpenAI';
      const project = typeof settings.projectName === 'string' ? settings.projectName : '';
      const version = typeof settings.apiVersion === 'string' ? settings.apiVersion : 'v1';
      if (!resource && !p.host) return { ok: false, message: 'azure needs resourceName' };
      if (type === 'Foundry' && !project) return { ok: false, message: 'azure resourceType Foundry needs projectName' };
      const host = type === 'Foundry' ? `${resource}.services.ai.azure.com` : `${resource}.openai.azure.com`;
      const base = `${type === 'Foundry' ? `/api/projects/${encodeURIComponent(project)}` : ''}/openai`;
      const q = `?api-version=${encodeURIComponent(version)}`;
      const e = at(host, 443, '', version === 'v1' ? `${base}/v1/chat/completions` : `${base}/deployments/{model}/chat/completions${q}`);
      // Dated API versions address a deployment, named like the request's model.
      const chatPath = version === 'v1' || p.path ? undefined : (model: string) => `${base}/deployments/${encodeURIComponent(model)}/chat/completions${q}`;
      const apiPaths: VendorEndpoint['apiPaths'] = version === 'v1'
        ? { AI_ROUTE_MODELS: `${base}/v1/models`, AI_ROUTE_EMBEDDINGS: `${base}/v1/embeddings`, AI_ROUTE_RESPONSES: `${base}/v1/responses` }
        : {};
      return { ok: true, endpoint: { format: 'openai', ...e, ...(chatPath ? { chatPath } : {}), credentialHeaders: (key) => ({ 'api-key': key }), fixedHeaders: {}, apiPaths } };
    }
    case 'vertexai': {
      const project = typeof settings.projectId === 'string' ? settings.projectId : '';
      const region = regionOf(settings.region, 'us-central1');
      if (!project) return { ok: false, message: 'vertexai needs projectId' };
      if (!region) return { ok: false, message: 'vertexai region must be lower-case letters, digits and hyphens' };
      const base = `/v1/projects/${encodeURIComponent(project)}/locations/${region}/endpoints/openapi`;
      const host = region === 'global' ? 'aiplatform.googleapis.com' : `${region}-aiplatform.googleapis.com`;
      return {
        ok: true,
        endpoint: { format: 'openai', ...at(host, 443, base, '/chat/completions'), credentialHeaders: bearer, fixedHeaders: {}, apiPaths: { AI_ROUTE_EMBEDDINGS: `${base}/embeddings` } },
      };
    }
    default:
      return { ok: false, message: `provider kind ${p.kind || 'unset'} is not supported by this proxy (supported: openai, azureopenai, azure, anthropic, gemini, bedrock, vertexai, custom)` };
  }
}

/** A JSON object text from the IR (settings, policies) as an object; anything else is an empty one. */
export function parseJsonObject(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A cloud region setting (default when unset), or undefined when it could not be a region (it becomes part of a host name). */
function regionOf(v: unknown, dflt: string): string | undefined {
  const r = typeof v === 'string' && v !== '' ? v : dflt;
  return /^[a-z0-9-]{1,63}$/.test(r) ? r : undefined;
}
