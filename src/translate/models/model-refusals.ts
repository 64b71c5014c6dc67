// GwModel fields the proxy cannot apply, decided once here (issue 14): the IR Model carries them as
// refusals (the proxy refuses the model) and the status writer names the same list on the GwModel.
// Also the provider tables that say how a GwModel provider is called (wire kind, default base URL).
import type { GwModelSpec } from '../../api/index.js';
import { objectRefusals, uniqueRefusals, type IrRefusal } from '../../coverage/effective.js';
import { uncheckedModelSpec, type UncheckedModelSpec } from '../objects/gw-unchecked.js';
import { rec } from '../objects/read.js';

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
  AzureOpenAI: 'azureopenai',
  Cohere: 'cohere',
  HuggingFace: 'openai',
};

/** The settings object each provider reads (`spec.azure` for Azure, ...); others read `spec.custom` (providerOverride, formats). */
export const SETTINGS_KEY: Record<string, SettingsKey> = {
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
  Cohere: 'https://api.cohere.com/v2',
  // The Inference Providers router (OpenAI-compatible); a TGI endpoint's baseURL is `https://<endpoint>/v1`.
  HuggingFace: 'https://router.huggingface.co/v1',
};

const SETTINGS_KEYS = ['azure', 'vertexai', 'bedrock', 'custom'] as const;
type SettingsKey = (typeof SETTINGS_KEYS)[number];

/** The provider-specific settings objects of a GwModel spec, for provenance. */
export function settingsOf(spec: GwModelSpec): Pick<GwModelSpec, SettingsKey> {
  const out: Record<string, unknown> = {};
  for (const k of SETTINGS_KEYS) if (spec[k] !== undefined) out[k] = spec[k];
  return out as Pick<GwModelSpec, SettingsKey>;
}

/**
 * Every field of a GwModel that the API accepts and the proxy does not act on, decided once for the IR
 * Model's `refusals` and the GwModel's status (issue 14): the coverage table's refused leaves (src/coverage
 * gw-model.ts) plus what depends on values the table cannot express (a provider without a wire kind, a
 * provider that needs a baseURL). Pure: call it with the stored GwModel (`{ key: 'ns/name', obj }`); an
 * empty list means the proxy applies everything the model sets.
 */
export function modelRefusals(m: { key: string; obj: { spec?: unknown } }): IrRefusal[] {
  const source = `GwModel ${m.key}`;
  // Valid or not: the coverage table reads whatever the spec sets.
  const spec = rec(m.obj.spec) ?? {};
  return uniqueRefusals([
    ...objectRefusals('GwModel', source, spec),
    // A backendRef is where the model is called: no baseURL needed then.
    ...valueRefusals(uncheckedModelSpec(m.obj.spec), source, rec(rec(spec.custom)?.backendRef) !== undefined),
  ]);
}

function valueRefusals(spec: UncheckedModelSpec, source: string, hasBackendRef: boolean): IrRefusal[] {
  const provider = spec.provider;
  if (provider === undefined) return [];
  if (!MODEL_KINDS[provider]) {
    const supported = Object.keys(MODEL_KINDS).join(', ');
    const reason = `provider ${provider} is not supported by this release (supported: ${supported})`;
    return [{ field: 'spec.provider', source, reason, security: false }];
  }
  if (!spec.baseURL && !hasBackendRef && !DEFAULT_BASE[provider] && !SETTINGS_ADDRESSED.has(provider))
    return [{ field: 'spec.baseURL', source, reason: `provider ${provider} needs a baseURL`, security: false }];
  return [];
}
