// GwModel: concrete and virtual models (seed 001 "GwModel").
import {
  doc,
  Type,
  LongString,
  CELExpression,
  ObjectName,
  Namespace,
  SectionName,
  Port,
  StringEnum,
  rules,
  rule,
  oneOf,
  type Static,
} from './schema-kit.js';
import { Group } from './refs.js';
import { FieldTransformations, AIPromptGuard } from './ai.js';
import { Authorization } from './authn.js';
import { ModelBackendAuth } from './backend-auth.js';
import { Health, BackendTLS, BackendTunnel, HeaderFilter } from './connection.js';
import { AzureSettings, VertexAISettings, BedrockSettings, CustomProviderSettings } from './providers.js';

/** 19 hosted vendors, then Custom. */
export const MODEL_PROVIDERS = [
  'OpenAI',
  'AzureOpenAI',
  'Azure',
  'Anthropic',
  'Gemini',
  'VertexAI',
  'Bedrock',
  'Mistral',
  'Cohere',
  'Groq',
  'DeepSeek',
  'XAI',
  'Together',
  'Fireworks',
  'Perplexity',
  'OpenRouter',
  'Cerebras',
  'HuggingFace',
  'Ollama',
  'Custom',
] as const;

const ModelParentRef = Type.Object({
  group: Type.Optional(Group()),
  kind: Type.Optional(StringEnum(['Gateway', 'ListenerSet', 'HTTPRoute'] as const, { default: 'Gateway' })),
  namespace: Type.Optional(Namespace()),
  name: ObjectName(),
  sectionName: Type.Optional(SectionName()),
  port: Type.Optional(Port()),
});

const ModelRef = Type.Object({ name: ObjectName() });
const targetModel = { modelRef: ModelRef, model: Type.Optional(LongString()) };

export const ModelPolicies = Type.Object({
  transformations: Type.Optional(FieldTransformations()),
  finalTransformations: Type.Optional(FieldTransformations()),
  authorization: Type.Optional(Authorization),
  auth: Type.Optional(ModelBackendAuth),
  health: Type.Optional(Health),
  tls: Type.Optional(BackendTLS),
  tunnel: Type.Optional(BackendTunnel),
  headers: Type.Optional(HeaderFilter),
  promptGuard: Type.Optional(AIPromptGuard),
});

/** The routing strategies of a virtual model, exactly one of which is set. */
export const VIRTUAL_MODEL_STRATEGIES = ['weighted', 'failover', 'conditional'] as const;

export const VirtualModel = Type.Object(
  {
    weighted: Type.Optional(
      Type.Object({
        targets: Type.Array(
          Type.Object({
            ...targetModel,
            weight: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000000, default: 1 })),
          }),
          {
            minItems: 1,
            maxItems: 64,
            ...rules(
              rule('self.exists(t, !has(t.weight) || t.weight > 0)', 'at least one target must have a weight above 0'),
            ),
          },
        ),
      }),
    ),
    failover: Type.Optional(
      Type.Object({
        targets: Type.Array(Type.Object({ ...targetModel, priority: Type.Integer({ minimum: 0, maximum: 1000000 }) }), {
          minItems: 1,
          maxItems: 64,
        }),
      }),
    ),
    conditional: Type.Optional(
      Type.Object({
        targets: Type.Array(Type.Object({ ...targetModel, when: Type.Optional(CELExpression()) }), {
          minItems: 1,
          maxItems: 64,
          ...rules(
            rule(
              'self.filter(t, !has(t.when)).size() == 0 || (self.filter(t, !has(t.when)).size() == 1 && !has(self[self.size() - 1].when))',
              'only the last target may omit when (it is the fallback)',
            ),
          ),
        }),
      }),
    ),
  },
  rules(oneOf(VIRTUAL_MODEL_STRATEGIES)),
);

const settingOnlyFor = (field: string, provider: string) =>
  rule(
    `!has(self.${field}) || (has(self.provider) && self.provider == '${provider}')`,
    `${field} may only be set when provider is ${provider}`,
    `.${field}`,
  );
const settingRequiredFor = (field: string, provider: string) =>
  rule(
    `!has(self.provider) || self.provider != '${provider}' || has(self.${field})`,
    `${field} is required when provider is ${provider}`,
    `.${field}`,
  );

export const GwModelSpec = Type.Object(
  {
    parentRefs: doc(
      Type.Array(ModelParentRef, { minItems: 1, maxItems: 16 }),
      'Gateways, ListenerSets or HTTPRoute rules that serve this model.',
    ),
    match: Type.Optional(
      doc(
        Type.Object({ model: Type.Optional(LongString({ pattern: '^(\\*|\\*[^*]+|[^*]+\\*?)$' })) }),
        'Which requested model names select this GwModel; unset matches metadata.name exactly.',
      ),
    ),
    visibility: Type.Optional(
      doc(
        StringEnum(['Public', 'Internal'] as const, { default: 'Public' }),
        'Public: clients may request it and it is listed; Internal: only virtual models select it.',
      ),
    ),
    provider: Type.Optional(doc(StringEnum(MODEL_PROVIDERS), 'The hosted provider serving this model.')),
    azure: Type.Optional(AzureSettings),
    vertexai: Type.Optional(VertexAISettings),
    bedrock: Type.Optional(BedrockSettings),
    custom: Type.Optional(CustomProviderSettings),
    baseURL: Type.Optional(
      doc(
        LongString({ pattern: '^https?://[^\\s/?#@]+(/[^\\s?#]*)?$' }),
        'Override of the provider API base URL (http or https, no query, fragment or user info).',
      ),
    ),
    policies: Type.Optional(
      doc(
        ModelPolicies,
        'Model-level transformations, authorization, upstream auth, health, TLS, tunnel, headers and prompt guards.',
      ),
    ),
    virtualModel: Type.Optional(doc(VirtualModel, 'Route to other GwModels: weighted, failover or conditional.')),
  },
  rules(
    oneOf(['provider', 'virtualModel']),
    settingOnlyFor('azure', 'Azure'),
    settingOnlyFor('vertexai', 'VertexAI'),
    settingOnlyFor('bedrock', 'Bedrock'),
    settingOnlyFor('custom', 'Custom'),
    settingRequiredFor('azure', 'Azure'),
    settingRequiredFor('vertexai', 'VertexAI'),
    settingRequiredFor('custom', 'Custom'),
    rule(
      '!has(self.virtualModel) || !(has(self.baseURL) || has(self.policies))',
      'baseURL and policies may only be set on a model with a provider, not on a virtual model',
    ),
  ),
);
export type GwModelSpec = Static<typeof GwModelSpec>;
export type VirtualModel = Static<typeof VirtualModel>;
export type ModelPolicies = Static<typeof ModelPolicies>;
