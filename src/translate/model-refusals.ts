// GwModel fields the proxy cannot apply, decided once here (issue 14): the IR Model carries them as
// refusals (the proxy refuses the model) and the status writer names them on the GwModel's status.
// Also the provider tables that say how a GwModel provider is called (wire kind, default base URL).
import type { RefusalInput } from '../ir/types.js';
import { rec, str, type Rec } from './read.js';

// Providers whose chat API is OpenAI's (at their own base URL) are called as `openai`.
export const MODEL_KINDS: Record<string, string> = {
  OpenAI: 'openai',
  Anthropic: 'anthropic',
  Custom: 'custom',
  Mistral: 'openai',
  Groq: 'openai',
  DeepSeek: 'openai',
  XAI: 'openai',
  Together: 'openai',
  Fireworks: 'openai',
  Perplexity: 'openai',
  OpenRouter: 'openai',
  Cerebras: 'openai',
  Ollama: 'openai',
  Gemini: 'gemini',
  Bedrock: 'bedrock',
  Azure: 'azure',
  VertexAI: 'vertexai',
};

/** The settings object each provider reads (`spec.azure` for Azure, ...); others read `spec.custom` (providerOverride, formats). */
export const SETTINGS_KEY: Record<string, string> = {
  Azure: 'azure',
  VertexAI: 'vertexai',
  Bedrock: 'bedrock',
  Custom: 'custom',
};

// Providers addressed by their settings (region, resource, project); a baseURL only moves their host.
const SETTINGS_ADDRESSED = new Set(['Bedrock', 'Azure', 'VertexAI']);

export const DEFAULT_BASE: Record<string, string> = {
  OpenAI: 'https://api.openai.com/v1',
  Anthropic: 'https://api.anthropic.com/v1',
  Mistral: 'https://api.mistral.ai/v1',
  Groq: 'https://api.groq.com/openai/v1',
  DeepSeek: 'https://api.deepseek.com/v1',
  XAI: 'https://api.x.ai/v1',
  Together: 'https://api.together.xyz/v1',
  Fireworks: 'https://api.fireworks.ai/inference/v1',
  Perplexity: 'https://api.perplexity.ai',
  OpenRouter: 'https://openrouter.ai/api/v1',
  Cerebras: 'https://api.cerebras.ai/v1',
  Ollama: 'http://localhost:11434/v1',
  Gemini: 'https://generativelanguage.googleapis.com/v1beta/openai',
};

/** `spec.policies.<field>` the model path does not apply, with whether skipping it would weaken security. */
const POLICIES_NOT_APPLIED: [field: string, security: boolean, what: string][] = [
  ['authorization', true, 'authorization of model requests'],
  ['promptGuard', true, 'prompt guards on model requests'],
  ['tls', true, 'upstream TLS settings of a model'],
  ['transformations', false, 'request transformations of a model'],
  ['finalTransformations', false, 'final request transformations of a model'],
  ['headers', false, 'header changes of a model'],
  ['tunnel', false, 'tunnelled model connections'],
  // The seed does not define the Health type's fields, so no behaviour can be derived from it.
  ['health', false, 'model health settings'],
];

// `policies.auth` fields that would change where the credential goes; sending it elsewhere fails at the vendor.
const AUTH_NOT_APPLIED = ['location', 'credentials'];
const AUTH_KINDS = ['key', 'secretRef', 'passthrough', 'aws', 'azure', 'gcp'];

/** The provider-specific settings objects of a GwModel spec, for provenance. */
export function settingsOf(spec: Rec): Rec {
  const out: Rec = {};
  for (const k of ['azure', 'vertexai', 'bedrock', 'custom']) if (spec[k] !== undefined) out[k] = spec[k];
  return out;
}

/**
 * Every field of a GwModel that the API accepts and the proxy does not act on, as refusals (field paths
 * from the object's root). Pure: call it with the stored GwModel (`{ key: 'ns/name', obj }`); an empty
 * list means the proxy applies everything the model sets. The status writer puts a condition naming
 * each `field` on the GwModel (security ones make the proxy answer `policy_not_enforced`).
 */
export function modelRefusals(m: { key: string; obj: { spec?: unknown } }): RefusalInput[] {
  const spec = rec(m.obj.spec) ?? {};
  const source = `GwModel ${m.key}`;
  const out: RefusalInput[] = [];
  const refuse = (field: string, reason: string, security = false) => out.push({ field, source, reason, security });
  const provider = str(spec.provider);
  if (provider === undefined) return out;
  if (!MODEL_KINDS[provider]) {
    refuse(
      'spec.provider',
      `provider ${provider} is not supported by this release (supported: ${Object.keys(MODEL_KINDS).join(', ')})`,
    );
  } else if (!str(spec.baseURL) && !DEFAULT_BASE[provider] && !SETTINGS_ADDRESSED.has(provider)) {
    refuse('spec.baseURL', `provider ${provider} needs a baseURL`);
  }
  if (provider === 'Custom' && rec(spec.custom)?.backendRef !== undefined) {
    refuse(
      'spec.custom.backendRef',
      'a GwModel custom provider is called at its baseURL; custom.backendRef is not applied by this release',
    );
  }
  const policies = rec(spec.policies) ?? {};
  for (const [field, security, what] of POLICIES_NOT_APPLIED) {
    if (policies[field] !== undefined)
      refuse(
        `spec.policies.${field}`,
        `${what} is not applied by this release; the model is refused rather than served without it`,
        security,
      );
  }
  const auth = rec(policies.auth) ?? {};
  for (const field of AUTH_NOT_APPLIED) {
    if (auth[field] !== undefined)
      refuse(
        `spec.policies.auth.${field}`,
        'the credential location is not applied by this release; the model is refused rather than send the credential elsewhere',
      );
  }
  for (const field of Object.keys(auth).sort()) {
    if (!AUTH_KINDS.includes(field) && !AUTH_NOT_APPLIED.includes(field) && auth[field] !== undefined) {
      refuse(
        `spec.policies.auth.${field}`,
        `this credential kind is not supported for models (${AUTH_KINDS.join(', ')} are)`,
        true,
      );
    }
  }
  return out;
}
